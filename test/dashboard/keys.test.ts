// The keys page: list, generate (shown once, replacing the single key of Free and Starter only when
// confirmed, disabled past the plan's count), revoke with confirmation; another account's key is 404.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Browser, signedInBrowser, startDashboardApp, type DashboardApp } from '../support/dashboard.js';
import { graphql } from '../../src/graphql.js';

let t: DashboardApp;
beforeAll(async () => {
  t = await startDashboardApp({ now: '2026-05-12T03:00:00Z' });
  await t.importFixture('f11.1-data.csv');
});
afterAll(() => t.close());

const signedIn = (email: string): Promise<Browser> => signedInBrowser(t, email);

const keyOf = (html: string) => /id="new-key" type="text" readonly value="([a-z]+_[A-Za-z0-9]{56})"/.exec(html)?.[1];

it('generates a key shown once, which works, then revokes it after confirmation so it answers 401 at once', async () => {
  const browser = await signedIn('keys@example.com');
  const empty = await (await browser.get('/dashboard/keys')).text();
  expect(empty).toContain('No keys yet.');
  const csrf = Browser.csrfOf(empty);
  const generated = await browser.post('/dashboard/keys', { csrf });
  expect(generated.status).toBe(200);
  expect(generated.headers.get('cache-control')).toBe('no-store');
  const html = await generated.text();
  const key = keyOf(html)!;
  expect(key).toBeDefined();
  expect(html).toContain('it is not shown again');
  expect((await t.request('/latest', { key })).status).toBe(200);

  const listed = await (await browser.get('/dashboard/keys')).text();
  expect(listed).not.toContain(key);
  expect(listed).toContain(`${key.split('_')[0]}_…${key.slice(-4)}`);
  const revokeLink = /href="(\/dashboard\/keys\/revoke\?id=[0-9a-f-]+)"/.exec(listed)![1]!;
  const confirm = await (await browser.get(revokeLink)).text();
  expect(confirm).toContain('cannot be undone');
  const id = new URL(revokeLink, 'http://x').searchParams.get('id')!;
  expect((await browser.post('/dashboard/keys/revoke', { csrf, id })).status).toBe(303);
  const refused = await t.json('/latest', { key });
  expect(refused.status).toBe(401);
  expect(refused.body.error.type).toBe('invalid_api_key');
  expect(await (await browser.get('/dashboard/keys')).text()).toContain('Revoked');
});

it('on Free, replacing the key needs the confirmation, and then the old key stops at once', async () => {
  const browser = await signedIn('single@example.com');
  const csrf = Browser.csrfOf(await (await browser.get('/dashboard/keys')).text());
  const first = keyOf(await (await browser.post('/dashboard/keys', { csrf })).text())!;
  const page = await (await browser.get('/dashboard/keys')).text();
  expect(page).toContain('I understand my current key stops working at once');
  const unconfirmed = await browser.post('/dashboard/keys', { csrf });
  expect(unconfirmed.status).toBe(400);
  expect((await t.request('/latest', { key: first })).status).toBe(200);
  const second = keyOf(await (await browser.post('/dashboard/keys', { csrf, confirm: 'yes' })).text())!;
  expect((await t.request('/latest', { key: first })).status).toBe(401);
  expect((await t.request('/latest', { key: second })).status).toBe(200);
});

it("disables Generate at the plan's key count with the reason", async () => {
  await t.operator(graphql('mutation { createAccount(email: "pro@example.com", plan: professional) { id } }'));
  for (let i = 0; i < 5; i++) await t.operator(graphql('mutation { createApiKey(email: "pro@example.com") { key } }'));
  const browser = await signedIn('pro@example.com');
  const html = await (await browser.get('/dashboard/keys')).text();
  expect(html).toContain('The Professional plan allows 5 active keys: revoke one to generate another.');
  expect(html).toMatch(/<button type="submit" disabled aria-describedby="generate-reason">Generate key<\/button>/);
  const forced = await browser.post('/dashboard/keys', { csrf: Browser.csrfOf(html) });
  expect(forced.status).toBe(403);
  const active = await t.db
    .selectFrom('api_keys')
    .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
    .select('api_keys.id')
    .where('email', '=', 'pro@example.com')
    .where('api_keys.status', '=', 'active')
    .execute();
  expect(active).toHaveLength(5);
});

it("answers 404 for another account's key id, a malformed one, and a forged CSRF token changes nothing", async () => {
  const victim = await t.createKey('starter', 'victim@example.com');
  const victimId = (
    await t.db
      .selectFrom('api_keys')
      .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
      .select('api_keys.id')
      .where('email', '=', 'victim@example.com')
      .executeTakeFirstOrThrow()
  ).id;
  const browser = await signedIn('attacker@example.com');
  const csrf = Browser.csrfOf(await (await browser.get('/dashboard/keys')).text());
  expect((await browser.get(`/dashboard/keys/revoke?id=${victimId}`)).status).toBe(404);
  for (const id of [victimId, '', 'not-a-uuid', 'x'.repeat(10 * 1024), 'ü']) {
    expect((await browser.post('/dashboard/keys/revoke', { csrf, id })).status, id.slice(0, 40)).toBe(404);
  }
  expect((await browser.post('/dashboard/keys/revoke', { csrf: 'forged', id: victimId })).status).toBe(403);
  expect((await t.request('/latest', { key: victim })).status).toBe(200);
});

it('refuses new keys to a suspended account, and sends signed-out visitors to sign in', async () => {
  const browser = await signedIn('suspended@example.com');
  await t.operator(graphql('mutation { setAccountStatus(email: "suspended@example.com", status: suspended) { id } }'));
  const html = await (await browser.get('/dashboard/keys')).text();
  expect(html).toContain('The account is suspended: no new keys can be created.');
  expect((await browser.post('/dashboard/keys', { csrf: Browser.csrfOf(html) })).status).toBe(403);
  const anonymous = await new Browser(t).get('/dashboard/keys');
  expect(anonymous.status).toBe(303);
  expect(anonymous.headers.get('location')).toBe('/dashboard');
});
