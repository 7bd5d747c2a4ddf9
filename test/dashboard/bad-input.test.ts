// Bad input on every dashboard form and token, beyond what each page's own tests try (sign-in.test.ts:
// tokens, e-mail addresses, expiry, replay, CSRF and origins; keys.test.ts and webhooks.test.ts: ids
// and fields): bodies too large, not UTF-8 or not a form, text the store cannot hold, cookies of
// every shape, a session cookie after sign-out on every form, junk ids on the confirmation pages.
// Never a 5xx, never a stack trace, never a change.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Browser, PUBLIC_URL, startDashboardApp, type DashboardApp } from '../support/dashboard.js';
import { graphql } from '../../src/graphql.js';

let t: DashboardApp;
beforeAll(async () => {
  t = await startDashboardApp({ now: '2026-05-12T03:00:00Z', config: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  await t.importFixture('f11.1-data.csv');
});
afterAll(() => t.close());

/** Every state-changing form of a signed-in page. */
const FORMS = [
  '/dashboard/keys',
  '/dashboard/keys/revoke',
  '/dashboard/webhooks',
  '/dashboard/webhooks/test',
  '/dashboard/webhooks/active',
  '/dashboard/webhooks/delete',
  '/dashboard/sign-out',
] as const;
/** The forms anyone may send. */
const OPEN_FORMS = ['/dashboard/sign-in-link', '/dashboard/sign-in'] as const;

/** A page the dashboard may answer a bad request with: a 4xx page, no stack trace, no internals. */
async function expectRefusalPage(response: Response, label: string): Promise<string> {
  expect(response.status, label).toBeGreaterThanOrEqual(400);
  expect(response.status, label).toBeLessThan(500);
  expect(response.headers.get('content-type'), label).toBe('text/html; charset=utf-8');
  const html = await response.text();
  expect(html, label).not.toMatch(/ at \S+\.[jt]s:\d+|\bError\b|node_modules/);
  return html;
}

/** What a signed-in account holds: its sessions, keys and subscriptions. */
async function stateOf(email: string) {
  const account = await t.db.selectFrom('accounts').select('id').where('email', '=', email).executeTakeFirstOrThrow();
  const [sessions, keys, subscriptions] = await Promise.all([
    t.db.selectFrom('dashboard_sessions').select('token_hash').where('account_id', '=', account.id).execute(),
    t.db.selectFrom('api_keys').select(['id', 'status']).where('account_id', '=', account.id).orderBy('id').execute(),
    t.db.selectFrom('webhook_subscriptions').select(['id', 'is_active']).where('account_id', '=', account.id).orderBy('id').execute(),
  ]);
  return { sessions: sessions.length, keys, subscriptions };
}

async function professional(email: string): Promise<{ browser: Browser; csrf: string; keyId: string; subscriptionId: string }> {
  await t.operator(graphql('mutation($e: EmailAddress!) { createAccount(email: $e, plan: professional) { id } }'), { e: email });
  await t.operator(graphql('mutation($e: EmailAddress!) { createApiKey(email: $e) { key } }'), { e: email });
  const browser = new Browser(t);
  await browser.signIn(t, email);
  const csrf = Browser.csrfOf(await (await browser.get('/dashboard/keys')).text());
  const created = await (await browser.post('/dashboard/webhooks', { csrf, url: 'https://127.0.0.1:9/hook' })).text();
  const subscriptionId = /name="id" value="([0-9a-f]{32})"/.exec(created)![1]!;
  const keyId = /keys\/revoke\?id=([0-9a-f-]{36})/.exec(await (await browser.get('/dashboard/keys')).text())![1]!;
  return { browser, csrf, keyId, subscriptionId };
}

it('refuses bodies over 16 KiB, not UTF-8, or not a form on every form, changing nothing', async () => {
  const email = 'bodies@example.com';
  const { browser, csrf, keyId, subscriptionId } = await professional(email);
  const before = await stateOf(email);
  const form = new URLSearchParams({ csrf, id: subscriptionId, active: 'false', url: 'https://127.0.0.1:9/other', email, confirm: 'yes' }).toString();
  const bodies: [string, string | Uint8Array<ArrayBuffer>, string][] = [
    ['17 KiB', `${form}&pad=${'x'.repeat(17 * 1024)}`, 'application/x-www-form-urlencoded'],
    ['not UTF-8', Uint8Array.from([...Buffer.from(`${form}&description=`), 0xff, 0xfe, 0xc3]), 'application/x-www-form-urlencoded'],
    ['JSON', JSON.stringify({ csrf: 'nope', id: keyId }), 'application/json'],
    ['empty', '', 'application/x-www-form-urlencoded'],
    ['broken escapes', 'csrf=%E0%A4%A&id=%%%', 'application/x-www-form-urlencoded'],
  ];
  for (const path of [...FORMS, ...OPEN_FORMS]) {
    for (const [name, body, type] of bodies) {
      const response = await t.app.web.fetch(
        `${PUBLIC_URL}${path}`,
        {
          method: 'POST',
          headers: {
            'Content-Type': type,
            Origin: PUBLIC_URL,
            'Sec-Fetch-Site': 'same-origin',
            Cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
          },
          body,
        },
        { req: { socket: { remoteAddress: '127.0.0.1', encrypted: false } } },
      );
      await expectRefusalPage(response, `${path} ${name}`);
    }
  }
  expect(await stateOf(email)).toEqual(before);
  expect(t.mailbox.received.filter((m) => m.to.includes(email))).toHaveLength(1);
});

it('answers a session cookie of any shape that names no session with the sign-in page, and its forms with 401', async () => {
  const cookies = ['', 'x', 'x'.repeat(10 * 1024), '%F0%9F%98%80'.repeat(11), 'A'.repeat(43), '"quoted"', 'a;b', '%00'.repeat(43)];
  for (const value of cookies) {
    const browser = new Browser(t);
    browser.cookies.set('session', value);
    const overview = await browser.get('/dashboard');
    expect(overview.status, value.slice(0, 20)).toBe(200);
    expect(await overview.text()).toContain('Send sign-in link');
    for (const path of ['/dashboard/keys', '/dashboard/usage', '/dashboard/webhooks']) {
      const page = await browser.get(path);
      expect(page.status, `${path} ${value.slice(0, 20)}`).toBe(303);
    }
    for (const path of FORMS) await expectRefusalPage(await browser.post(path, { csrf: 'x' }), `${path} ${value.slice(0, 20)}`);
  }
});

it('refuses every form with the session cookie kept after signing out (401), changing nothing', async () => {
  const email = 'after-sign-out@example.com';
  const { browser, csrf, keyId, subscriptionId } = await professional(email);
  const kept = new Map(browser.cookies);
  expect((await browser.post('/dashboard/sign-out', { csrf })).status).toBe(303);
  const before = await stateOf(email);
  expect(before.sessions).toBe(0);
  for (const [name, value] of kept) browser.cookies.set(name, value);
  const fields = { csrf, id: keyId, confirm: 'yes', url: 'https://127.0.0.1:9/late', active: 'false' };
  for (const path of FORMS) {
    const id = path.startsWith('/dashboard/webhooks') ? subscriptionId : keyId;
    const response = await browser.post(path, { ...fields, id });
    expect(response.status, path).toBe(401);
    expect(await expectRefusalPage(response, path)).toContain('Your session has ended. Sign in again.');
  }
  expect(await stateOf(email)).toEqual(before);
});

it('answers junk ids on the confirmation pages with 404, and junk in the other fields with the reason', async () => {
  const email = 'junk@example.com';
  const { browser, csrf } = await professional(email);
  const before = await stateOf(email);
  const junk = ['', 'x', 'x'.repeat(10 * 1024), 'ü😀', '%00', '<script>alert(1)</script>', '00000000-0000-0000-0000-000000000000', '0'.repeat(32)];
  for (const id of junk) {
    for (const page of ['/dashboard/keys/revoke', '/dashboard/webhooks/delete']) {
      const html = await expectRefusalPage(await browser.get(`${page}?id=${encodeURIComponent(id)}`), `${page} ${id.slice(0, 20)}`);
      expect(html).not.toContain('<script>alert');
    }
  }
  // the Free/Starter confirmation box of Generate: only "yes" confirms; this Professional account needs none
  for (const confirm of ['', 'no', 'ü', 'x'.repeat(10 * 1024)]) {
    expect((await browser.post('/dashboard/keys', { csrf, confirm })).status, confirm.slice(0, 10)).toBe(200);
  }
  // the e-mail field: a NUL or a 10 KB address, the form again with the reason
  const nul = await expectRefusalPage(await new Browser(t).post('/dashboard/sign-in-link', { email: 'a\u0000b@example.com' }), 'NUL e-mail');
  expect(nul).toContain('Send sign-in link');
  expect(nul).toContain('cannot be stored');
  const after = await stateOf(email);
  expect(after.subscriptions).toEqual(before.subscriptions);
  expect(after.keys.filter((k) => k.status === 'active')).toHaveLength(before.keys.length + 4);
});

it('refuses to replace the single Free key on any confirmation but "yes", keeping the key', async () => {
  const browser = new Browser(t);
  await browser.signIn(t, 'free-confirm@example.com');
  const csrf = Browser.csrfOf(await (await browser.get('/dashboard/keys')).text());
  expect((await browser.post('/dashboard/keys', { csrf })).status).toBe(200);
  const before = await stateOf('free-confirm@example.com');
  for (const confirm of ['', 'no', 'YES', 'yes ', 'ü', 'x'.repeat(10 * 1024)]) {
    const html = await expectRefusalPage(await browser.post('/dashboard/keys', { csrf, confirm }), confirm.slice(0, 10));
    expect(html).toContain('Tick the box confirming');
  }
  expect(await stateOf('free-confirm@example.com')).toEqual(before);
});

it('refuses every form posted from another site, even with the right CSRF token, changing nothing', async () => {
  const email = 'cross-site@example.com';
  const { browser, csrf, keyId, subscriptionId } = await professional(email);
  const before = await stateOf(email);
  const foreign: Record<string, string>[] = [
    { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' },
    { Origin: 'https://evil.example', 'Sec-Fetch-Site': '' },
    { Origin: 'http://rates.test.evil.example', 'Sec-Fetch-Site': '' },
    { 'Sec-Fetch-Site': 'same-site' },
  ];
  for (const path of FORMS) {
    const id = path.startsWith('/dashboard/webhooks') ? subscriptionId : keyId;
    for (const headers of foreign) {
      const response = await browser.post(path, { csrf, id, confirm: 'yes', active: 'false', url: 'https://127.0.0.1:9/x' }, headers);
      expect(response.status, `${path} ${JSON.stringify(headers)}`).toBe(403);
      expect(await expectRefusalPage(response, path)).toContain('This form was sent from another site.');
    }
  }
  expect(await stateOf(email)).toEqual(before);
});

it('answers Reports for a period past the data with 404 and for a year 0000 with 400, the page and the downloads', async () => {
  const { browser } = await professional('reports-far@example.com');
  // the last periods a name can give end on 9999-12-31, the day after which cannot be written
  for (const period of ['9999', '9999-12', '9999-Q4', '9999-H2']) {
    const page = await browser.get(`/dashboard/reports?period=${period}`);
    expect(page.status, period).toBe(404);
    expect(await page.text()).toMatch(/No data available between 9999-/);
    for (const download of ['csv', 'xlsx']) {
      const refused = await browser.get(`/dashboard/reports/${download}?period=${period}&interval=month`);
      await expectRefusalPage(refused, `${download} ${period}`);
      expect(refused.status).toBe(404);
    }
  }
  for (const period of ['0000', '0000-Q1', 'FY0000']) {
    const refused = await browser.get(`/dashboard/reports?period=${period}`);
    await expectRefusalPage(refused, period);
    expect(refused.status).toBe(400);
  }
});
