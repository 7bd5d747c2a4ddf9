// /api/alerts (docs/api.md §4.3): every field's boundaries (400 with an info naming the field),
// every plan's limit and its 403, ids as subscriptions' (another account's is 404), and the same
// authorisation as the webhook endpoints: a key, or a dashboard session whose changes carry its
// CSRF token.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/domain/plans.js';
import { graphql } from '../../src/graphql.js';
import { createAlert, JSON_HEADERS } from '../support/alerts.js';
import { Browser, startDashboardApp, type DashboardApp } from '../support/dashboard.js';
import { expectError } from '../support/expect.js';

const PATH = '/api/alerts';
const VALID = { currency: 'USD', condition: 'above', value: 0.7, channels: ['email'] };
const SET_STATUS = graphql('mutation($e: EmailAddress!, $s: AccountStatus!) { setAccountStatus(email: $e, status: $s) { status } }');
const SET_PLAN = graphql('mutation($e: EmailAddress!, $p: Plan!) { setAccountPlan(email: $e, plan: $p) { plan } }');

let t: DashboardApp;
let accounts = 0;
beforeAll(async () => {
  t = await startDashboardApp({ now: '2026-05-12T03:00:00Z' });
  await t.importFixture('f11.1-data.csv');
});
afterAll(async () => {
  await t?.close();
});

async function account(plan: Plan): Promise<{ key: string; email: string; id: string }> {
  const email = `alerts-${++accounts}-${plan}@example.test`;
  const key = await t.createKey(plan, email);
  const row = await t.db.selectFrom('accounts').select('id').where('email', '=', email).executeTakeFirstOrThrow();
  return { key, email, id: row.id };
}

const post = (key: string, body: unknown) => t.json(PATH, { key, method: 'POST', headers: JSON_HEADERS, body });

describe('creating an alert: every field', () => {
  let key: string;
  beforeAll(async () => {
    key = (await account('business')).key;
  });

  it('answers the alert as listed, its value an exact number', async () => {
    const res = await post(key, { currency: 'JPY', condition: 'change_pct', value: '1.250000', channels: ['webhook', 'email'], description: 'yen moves' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.alert).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{32}$/),
      currency: 'JPY',
      condition: 'change_pct',
      value: 1.25,
      channels: ['webhook', 'email'],
      description: 'yen moves',
      isActive: true,
      lastTriggeredAt: null,
      triggerCount: 0,
      createdAt: '2026-05-12T03:00:00.000Z',
    });
  });

  it.each([
    // the values at the edges that are accepted
    [{ value: '0.000001' }, 0.000001],
    [{ value: 999999999.999999 }, 999999999.999999],
    [{ value: '10635' }, 10635],
    [{ value: '0.6500000' }, 0.65],
  ])('accepts %j', async (change, value) => {
    const res = await post(key, { ...VALID, ...change });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.alert.value).toBe(value);
  });

  it.each([
    ['usd', 'USD'],
    [' eur ', 'EUR'],
    ['jPy', 'JPY'],
  ])('reads the currency %j in any case, blanks around it ignored, as %s', async (currency, code) => {
    const res = await post(key, { ...VALID, currency });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.alert.currency).toBe(code);
    const listed = await t.json(PATH, { key });
    expect(listed.body.alerts.find((alert: { id: string }) => alert.id === res.body.alert.id).currency).toBe(code);
  });

  it('accepts a description of 200 characters, and none', async () => {
    expect((await post(key, { ...VALID, description: 'é'.repeat(200) })).status).toBe(200);
    expect((await post(key, { ...VALID, description: null })).body.alert.description).toBeNull();
  });

  it.each([
    [{ currency: undefined }, /Missing required field 'currency'/],
    [{ currency: 7 }, /Field 'currency' must be a string/],
    [{ currency: 'AUD' }, /currency: AUD is the base currency/],
    [{ currency: 'aud' }, /currency: AUD is the base currency/],
    [{ currency: 'xyz' }, /currency: 'xyz' is not a supported code/],
    [{ currency: 'u sd' }, /currency: 'u sd' is not a supported code/],
    [{ currency: 'XYZ' }, /currency: 'XYZ' is not a supported code/],
    [{ currency: '' }, /currency: '' is not a supported code/],
    [{ condition: undefined }, /Missing required field 'condition'/],
    [{ condition: 'ABOVE' }, /condition must be one of above, below, change_pct/],
    [{ condition: 'equals' }, /condition must be one of/],
    [{ condition: ['above'] }, /Field 'condition' must be a string/],
    [{ value: undefined }, /Missing required field 'value'/],
    [{ value: 0 }, /value must be greater than 0/],
    [{ value: '0.000000' }, /value must be greater than 0/],
    [{ value: -1 }, /value must be a positive decimal number/],
    [{ value: '1.1234567' }, /value has at most 6 decimal places/],
    [{ value: 1.1234567 }, /value has at most 6 decimal places/],
    [{ value: 1e-7 }, /value must be a positive decimal number/],
    [{ value: '1e3' }, /value must be a positive decimal number/],
    [{ value: 1000000000 }, /value must be less than 1000000000/],
    [{ value: '' }, /value must be a positive decimal number/],
    [{ value: ' 1' }, /value must be a positive decimal number/],
    [{ value: 'abc' }, /value must be a positive decimal number/],
    [{ value: true }, /Field 'value' must be a number such as 0.65/],
    [{ value: { amount: 1 } }, /Field 'value' must be a number/],
    [{ channels: undefined }, /Missing required field 'channels'/],
    [{ channels: [] }, /channels must name at least one of email, webhook/],
    [{ channels: 'email' }, /Field 'channels' must be an array of strings/],
    [{ channels: [1] }, /Field 'channels' must be an array of strings/],
    [{ channels: ['sms'] }, /channels: 'sms' is not a channel/],
    [{ channels: ['email', 'email'] }, /channels: email appears twice/],
    [{ description: 'x'.repeat(201) }, /description must be at most 200 characters/],
    [{ description: 5 }, /Field 'description' must be a string/],
    [{ description: 'a\u0000b' }, /Field 'description'/],
    [{ colour: 'red' }, /Unknown field 'colour'/],
  ])('refuses %j with 400', async (change, info) => {
    const res = await post(key, { ...VALID, ...change });
    expectError(res, 400, 'bad_request', info);
  });

  it('refuses a body that is not a JSON object, or too large', async () => {
    expectError(await t.json(PATH, { key, method: 'POST', headers: JSON_HEADERS, body: '[1]' }), 400, 'bad_request', /JSON object/);
    expectError(await t.json(PATH, { key, method: 'POST', headers: JSON_HEADERS, body: '{' }), 400, 'bad_request', /not valid JSON/);
    expectError(await t.json(PATH, { key, method: 'POST', body: JSON.stringify(VALID) }), 400, 'bad_request', /Content-Type: application\/json/);
    expectError(await post(key, { ...VALID, description: 'x'.repeat(17_000) }), 400, 'bad_request', /too large/);
  });

  it('checks the fields (400) before the plan (403)', async () => {
    const free = (await account('free')).key;
    expectError(await post(free, { ...VALID, value: 0 }), 400, 'bad_request');
    expectError(await post(free, VALID), 403, 'alerts_not_available', /not available on the Free plan; the Starter plan allows 3/);
  });
});

describe('plans', () => {
  /** Fills the account up to one below its limit, stored directly: the API's own count is the point. */
  async function fillTo(accountId: string, n: number): Promise<void> {
    const rows = Array.from({ length: n }, () => ({
      id: randomBytes(16).toString('hex'),
      account_id: accountId,
      currency: 'USD' as const,
      condition: 'above' as const,
      value: '1',
      channels: ['email' as const],
    }));
    for (let i = 0; i < rows.length; i += 200)
      await t.db
        .insertInto('alerts')
        .values(rows.slice(i, i + 200))
        .execute();
  }

  it.each([
    ['starter', 3, 'The Starter plan allows 3 rate alerts and this account has 3; the Professional plan allows 20'],
    ['professional', 20, 'The Professional plan allows 20 rate alerts and this account has 20; the Business plan allows 100'],
    ['business', 100, 'The Business plan allows 100 rate alerts and this account has 100; the Enterprise plan allows 500'],
    ['enterprise', 500, 'The Enterprise plan allows 500 rate alerts and this account has 500; delete one to add another'],
  ] as const)('%s holds %i alerts; one more is 403 alert_limit_reached', async (plan, limit, info) => {
    const { key, id } = await account(plan);
    await fillTo(id, limit - 1);
    expect((await post(key, VALID)).status).toBe(200);
    const refused = await post(key, VALID);
    expectError(refused, 403, 'alert_limit_reached');
    expect(refused.body.error.info).toContain(info);
    const list = await t.json(PATH, { key });
    expect(list.body).toMatchObject({ success: true, limit });
    expect(list.body.alerts).toHaveLength(limit);
  });

  it('Free has none: 403 alerts_not_available; its list is empty with a limit of 0', async () => {
    const { key } = await account('free');
    expectError(await post(key, VALID), 403, 'alerts_not_available');
    expect((await t.json(PATH, { key })).body).toEqual({ success: true, alerts: [], limit: 0 });
  });

  it("Starter's alerts e-mail only: the webhook channel is 403 webhooks_not_available", async () => {
    const { key } = await account('starter');
    const refused = await post(key, { ...VALID, channels: ['email', 'webhook'] });
    expectError(refused, 403, 'webhooks_not_available', /e-mail only/);
    expect((await post(key, { ...VALID, channels: ['email'] })).status).toBe(200);
  });

  it('an account moved to Free keeps its alerts listed but cannot resume or test them', async () => {
    const { key, email } = await account('starter');
    const id = await createAlert(t, key, { currency: 'USD', condition: 'below', value: '0.5', channels: ['email'] });
    expect((await t.operator(SET_PLAN, { e: email, p: 'free' })).errors).toBeUndefined();
    expect((await t.json(PATH, { key })).body.alerts.map((a: any) => a.id)).toEqual([id]);
    expectError(await t.json(`${PATH}/${id}`, { key, method: 'PATCH', headers: JSON_HEADERS, body: { isActive: true } }), 403, 'alerts_not_available');
    expectError(await t.json(`${PATH}/${id}/test`, { key, method: 'POST' }), 403, 'alerts_not_available');
    // pausing and deleting stay possible
    expect((await t.json(`${PATH}/${id}`, { key, method: 'PATCH', headers: JSON_HEADERS, body: { isActive: false } })).status).toBe(200);
    expect((await t.json(`${PATH}/${id}`, { key, method: 'DELETE' })).status).toBe(200);
  });
});

describe('ids', () => {
  it('unknown, malformed and other accounts’ ids are 404 on every change; a deleted one is gone', async () => {
    const mine = await account('professional');
    const other = await account('professional');
    const theirs = await createAlert(t, other.key, { currency: 'EUR', condition: 'below', value: '0.6', channels: ['email'] });
    for (const id of [theirs, 'f'.repeat(32), 'not-an-id', theirs.toUpperCase()]) {
      expectError(await t.json(`${PATH}/${id}`, { key: mine.key, method: 'PATCH', headers: JSON_HEADERS, body: { isActive: false } }), 404, 'not_found');
      expectError(await t.json(`${PATH}/${id}`, { key: mine.key, method: 'DELETE' }), 404, 'not_found');
      expectError(await t.json(`${PATH}/${id}/test`, { key: mine.key, method: 'POST' }), 404, 'not_found');
    }
    // theirs is untouched
    expect((await t.json(PATH, { key: other.key })).body.alerts[0]).toMatchObject({ id: theirs, isActive: true });
    const deleted = await t.json(`${PATH}/${theirs}`, { key: other.key, method: 'DELETE' });
    expect(deleted.body).toEqual({ success: true, message: `Rate alert ${theirs} deleted` });
    expectError(await t.json(`${PATH}/${theirs}`, { key: other.key, method: 'DELETE' }), 404, 'not_found');
  });

  it('PATCH takes only isActive, a boolean', async () => {
    const { key } = await account('professional');
    const id = await createAlert(t, key, VALID as never);
    const patch = (body: unknown) => t.json(`${PATH}/${id}`, { key, method: 'PATCH', headers: JSON_HEADERS, body });
    expectError(await patch({}), 400, 'bad_request', /Missing required field 'isActive'/);
    expectError(await patch({ isActive: 'false' }), 400, 'bad_request', /must be true or false/);
    expectError(await patch({ isActive: false, value: 2 }), 400, 'bad_request', /Unknown field 'value'/);
    expect((await patch({ isActive: false })).body.alert.isActive).toBe(false);
    expect((await patch({ isActive: true })).body.alert.isActive).toBe(true);
  });

  it('without a key: 401', async () => {
    expectError(await t.json(PATH), 401, 'invalid_api_key');
    expectError(await t.json(PATH, { method: 'POST', headers: JSON_HEADERS, body: VALID }), 401, 'invalid_api_key');
  });
});

describe('with a dashboard session', () => {
  async function signedIn(plan: Plan): Promise<{ browser: Browser; csrf: string; email: string }> {
    const email = `alerts-session-${++accounts}@example.test`;
    const browser = new Browser(t);
    expect((await browser.signIn(t, email)).status).toBe(303);
    expect((await t.operator(SET_PLAN, { e: email, p: plan })).errors).toBeUndefined();
    const csrf = Browser.csrfOf(await (await browser.get('/dashboard')).text());
    return { browser, csrf, email };
  }

  async function call(browser: Browser, path: string, method: string, headers: Record<string, string>, body?: unknown) {
    const response = await browser.request(path, {
      method,
      headers: { ...headers, ...(body !== undefined ? JSON_HEADERS : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: await response.json(), headers: response.headers };
  }

  it('lists with the cookie alone; changes need the CSRF token in X-CSRF-Token', async () => {
    const { browser, csrf } = await signedIn('professional');
    const listed = await call(browser, PATH, 'GET', { Origin: 'https://elsewhere.example' });
    expect(listed.body).toEqual({ success: true, alerts: [], limit: 20 });
    expect(listed.headers.get('access-control-allow-origin')).toBeNull();
    expectError(await call(browser, PATH, 'POST', {}, VALID), 401, 'invalid_api_key', /X-CSRF-Token/);
    expectError(await call(browser, PATH, 'POST', { 'X-CSRF-Token': 'x'.repeat(43) }, VALID), 401, 'invalid_api_key', /not the CSRF token/);
    const created = await call(browser, PATH, 'POST', { 'X-CSRF-Token': csrf }, VALID);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = created.body.alert.id;
    expectError(await call(browser, `${PATH}/${id}`, 'DELETE', {}), 401, 'invalid_api_key');
    expect((await call(browser, `${PATH}/${id}`, 'PATCH', { 'X-CSRF-Token': csrf }, { isActive: false })).body.alert.isActive).toBe(false);
    expect((await call(browser, `${PATH}/${id}`, 'DELETE', { 'X-CSRF-Token': csrf })).status).toBe(200);
  });

  it("another session's CSRF token is refused", async () => {
    const one = await signedIn('professional');
    const two = await signedIn('professional');
    expectError(await call(one.browser, PATH, 'POST', { 'X-CSRF-Token': two.csrf }, VALID), 401, 'invalid_api_key');
  });

  it("a suspended account's session may list but not change", async () => {
    const { browser, csrf, email } = await signedIn('professional');
    expect((await call(browser, PATH, 'POST', { 'X-CSRF-Token': csrf }, VALID)).status).toBe(200);
    expect((await t.operator(SET_STATUS, { e: email, s: 'suspended' })).errors).toBeUndefined();
    expect((await call(browser, PATH, 'GET', {})).body.alerts).toHaveLength(1);
    expectError(await call(browser, PATH, 'POST', { 'X-CSRF-Token': csrf }, VALID), 401, 'account_suspended');
  });
});
