// /api/webhook-subscriptions with a dashboard session (docs/api.md §4.2, D31 in docs/decisions.md):
// the session cookie of a real sign-in stands for the account; changes need the session's CSRF
// token in X-CSRF-Token; a key still works as before and wins when both are sent. A missing or
// wrong token, or a cookie whose session ended, is 401 invalid_api_key and changes nothing.
import type { Plan } from '../../src/domain/plans.js';
import { graphql } from '../../src/graphql.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OPENSSL_AVAILABLE } from '../support/certificate.js';
import { Browser, startDashboardApp, type DashboardApp } from '../support/dashboard.js';
import { tableResolver } from '../support/dns.js';
import { expectError } from '../support/expect.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const PATH = '/api/webhook-subscriptions';
const SET_PLAN = graphql('mutation($e: EmailAddress!, $p: Plan!) { setAccountPlan(email: $e, plan: $p) { plan } }');
const SET_STATUS = graphql('mutation($e: EmailAddress!, $s: AccountStatus!) { setAccountStatus(email: $e, status: $s) { status } }');

describe.skipIf(!OPENSSL_AVAILABLE)('webhook subscriptions with a dashboard session', () => {
  let t: DashboardApp;
  let receiver: WebhookReceiver;
  let accounts = 0;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    const { resolve } = tableResolver({ 'receiver.test': ['127.0.0.1'] });
    t = await startDashboardApp({
      now: '2026-05-12T03:00:00Z',
      config: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
      webhookNetwork: { ca: [receiver.ca], resolve, timeoutMs: 1500 },
    });
    await t.importFixture('f11.1-data.csv');
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });
  beforeEach(() => receiver.clear());

  interface SignedIn {
    browser: Browser;
    email: string;
    csrf: string;
  }

  /** Signs in through the dashboard's own flow (mail, link, Sign in) on a Professional account. */
  async function signedIn(plan: Plan = 'professional'): Promise<SignedIn> {
    const email = `session-${++accounts}@example.com`;
    const browser = new Browser(t);
    expect((await browser.signIn(t, email)).status).toBe(303);
    const changed = await t.operator(SET_PLAN, { e: email, p: plan });
    expect(changed.errors).toBeUndefined();
    const csrf = Browser.csrfOf(await (await browser.get('/dashboard')).text());
    expect(csrf).not.toBe('');
    return { browser, email, csrf };
  }

  /** A JSON request from the signed-in browser, as a script on the dashboard would send it. */
  async function call(who: SignedIn, path: string, init: { method?: string; csrf?: string | null; body?: unknown; headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { ...init.headers };
    if (init.body !== undefined) headers['Content-Type'] = 'application/json';
    const csrf = init.csrf === undefined ? who.csrf : init.csrf;
    if (csrf !== null) headers['X-CSRF-Token'] = csrf;
    const response = await who.browser.request(path, {
      method: init.method ?? 'GET',
      headers,
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
  }

  const list = async (who: SignedIn) => (await call(who, PATH, { csrf: null })).body.subscriptions as { id: string; isActive: boolean }[];
  const create = (who: SignedIn, csrf?: string | null) =>
    call(who, PATH, { method: 'POST', body: { url: receiver.url(`/hook-${accounts}`, 'receiver.test') }, ...(csrf !== undefined ? { csrf } : {}) });

  it('lists with the cookie alone, with no CORS headers', async () => {
    const who = await signedIn();
    const listed = await call(who, PATH, { csrf: null, headers: { Origin: 'https://elsewhere.example' } });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ success: true, subscriptions: [], limit: 3 });
    expect(listed.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('creates, pauses, tests and deletes with the cookie and the X-CSRF-Token', async () => {
    const who = await signedIn();
    const created = await create(who);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.signingSecret).toMatch(/^whsec_/);
    const { id } = created.body.subscription;
    receiver.setSecret(`/hook-${accounts}`, created.body.signingSecret);
    expect(await list(who)).toMatchObject([{ id, isActive: true }]);

    const paused = await call(who, `${PATH}/${id}`, { method: 'PATCH', body: { isActive: false } });
    expect(paused.status).toBe(200);
    expect(paused.body.subscription.isActive).toBe(false);

    const tested = await call(who, `${PATH}/${id}/test`, { method: 'POST' });
    expect(tested.status).toBe(200);
    expect(tested.body.success).toBe(true);
    expect(receiver.deliveries).toHaveLength(1);

    const deleted = await call(who, `${PATH}/${id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(await list(who)).toEqual([]);
  });

  describe('a change without the session CSRF token is 401 invalid_api_key, and nothing changes', () => {
    let who: SignedIn;
    let id: string;
    beforeAll(async () => {
      who = await signedIn();
      id = (await create(who)).body.subscription.id;
    });

    const attempts = (csrf: string | null) =>
      [
        ['create', () => create(who, csrf)],
        ['patch', () => call(who, `${PATH}/${id}`, { method: 'PATCH', body: { isActive: false }, csrf })],
        ['test', () => call(who, `${PATH}/${id}/test`, { method: 'POST', csrf })],
        ['delete', () => call(who, `${PATH}/${id}`, { method: 'DELETE', csrf })],
      ] as const;

    it.each(['create', 'patch', 'test', 'delete'])('%s without X-CSRF-Token', async (name) => {
      const attempt = attempts(null).find(([n]) => n === name)![1];
      expectError(await attempt(), 401, 'invalid_api_key', /X-CSRF-Token/);
      expect(await list(who)).toMatchObject([{ id, isActive: true }]);
      expect(receiver.deliveries).toHaveLength(0);
    });

    it.each([
      ['forged', () => 'A'.repeat(43)],
      ['empty', () => ''],
      ['10 KB long', () => 'x'.repeat(10_000)],
      ['of another session', async () => (await signedIn()).csrf],
    ])('%s X-CSRF-Token', async (_label, token) => {
      const csrf = await token();
      for (const [, attempt] of attempts(csrf)) {
        expectError(await attempt(), 401, 'invalid_api_key', /CSRF token/);
      }
      expect(await list(who)).toMatchObject([{ id, isActive: true }]);
      expect(receiver.deliveries).toHaveLength(0);
    });
  });

  it('the cookie after sign-out is 401 invalid_api_key, for reading and for changes', async () => {
    const who = await signedIn();
    const token = who.browser.cookies.get('session')!;
    expect((await who.browser.post('/dashboard/sign-out', { csrf: who.csrf })).status).toBe(303);
    // the browser dropped the cookie; a client that kept it sends it anyway
    const kept = { ...who, browser: new Browser(t) };
    kept.browser.cookies.set('session', token);
    expectError(await call(kept, PATH, { csrf: null }), 401, 'invalid_api_key', /session has ended/);
    expectError(await create(kept), 401, 'invalid_api_key', /session has ended/);
  });

  it('an unknown or malformed session cookie is 401 invalid_api_key', async () => {
    const browser = new Browser(t);
    browser.cookies.set('session', 'not-a-session');
    const stranger = { browser, email: '', csrf: 'x' };
    expectError(await call(stranger, PATH, { csrf: null }), 401, 'invalid_api_key', /session has ended/);
  });

  it("a suspended account's session can list but not create", async () => {
    const who = await signedIn();
    expect((await t.operator(SET_STATUS, { e: who.email, s: 'suspended' })).errors).toBeUndefined();
    expect((await call(who, PATH, { csrf: null })).status).toBe(200);
    expectError(await create(who), 401, 'account_suspended');
    expect(await list(who)).toEqual([]);
  });

  it('the plan rules apply to a session as to a key: Free is 403 webhooks_not_available', async () => {
    const who = await signedIn('free');
    expectError(await create(who), 403, 'webhooks_not_available');
  });

  it("another account's subscription is 404 with a session, and stays", async () => {
    const owner = await signedIn();
    const { id } = (await create(owner)).body.subscription;
    const other = await signedIn();
    expectError(await call(other, `${PATH}/${id}`, { method: 'DELETE' }), 404, 'not_found');
    expect(await list(owner)).toMatchObject([{ id }]);
  });

  it('a key still works alone, and wins over a session cookie sent with it', async () => {
    const who = await signedIn();
    const key = await t.createKey('professional');
    const byKey = await t.json(PATH, { key });
    expect(byKey.status).toBe(200);
    // with both, the key's account is the one listed and changed: the session's stays empty
    const created = await call(who, PATH, {
      method: 'POST',
      csrf: null,
      headers: { Authorization: `Bearer ${key}` },
      body: { url: receiver.url('/by-key', 'receiver.test') },
    });
    expect(created.status).toBe(200);
    expect(await list(who)).toEqual([]);
    expect((await t.json(PATH, { key })).body.subscriptions).toHaveLength(1);
    // a bad key is refused even with a good session
    expectError(await call(who, PATH, { csrf: null, headers: { Authorization: 'Bearer nope' } }), 401, 'invalid_api_key');
  });

  it('over HTTPS the cookie is __Host-session, and a plain `session` cookie is not it', async () => {
    const browser = new Browser(t, { https: true });
    const email = `session-${++accounts}@example.com`;
    await browser.signIn(t, email);
    await t.operator(SET_PLAN, { e: email, p: 'professional' });
    expect([...browser.cookies.keys()]).toEqual(['__Host-session']);
    const who = { browser, email, csrf: Browser.csrfOf(await (await browser.get('/dashboard')).text()) };
    expect((await call(who, PATH, { csrf: null })).status).toBe(200);
    const plain = new Browser(t, { https: true });
    plain.cookies.set('session', browser.cookies.get('__Host-session')!);
    expectError(await call({ ...who, browser: plain }, PATH, { csrf: null }), 401, 'invalid_api_key', /API key is required/);
  });
});
