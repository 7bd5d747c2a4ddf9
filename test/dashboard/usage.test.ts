// The Usage page: requests per day of the current quota period beside the previous one (an SVG
// chart with a title per bar, and the numbers as a table), and the current period by endpoint, key
// and outcome; Free's one allowance since sign-up (D35 in docs/decisions.md). Only the signed-in
// account's own requests are counted.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Browser, signedInBrowser, pageText, startDashboardApp, type DashboardApp } from '../support/dashboard.js';
import { graphql } from '../../src/graphql.js';

let t: DashboardApp;
beforeAll(async () => {
  // 13:00 in Sydney on 12 May
  t = await startDashboardApp({ now: '2026-05-12T03:00:00Z' });
  await t.importFixture('f11.1-data.csv');
});
afterAll(() => t.close());

const signedIn = (email: string): Promise<Browser> => signedInBrowser(t, email);

async function accountIdOf(email: string): Promise<string> {
  return (await t.db.selectFrom('accounts').select('id').where('email', '=', email).executeTakeFirstOrThrow()).id;
}

it("charts this period's days beside the previous period's, and splits this period by endpoint, key and outcome", async () => {
  const email = 'usage@example.com';
  await t.operator(graphql('mutation { createAccount(email: "usage@example.com", plan: professional) { id } }'));
  const first = (await t.operator(graphql('mutation { createApiKey(email: "usage@example.com") { key } }'))).data!.createApiKey.key;
  const second = (await t.operator(graphql('mutation { createApiKey(email: "usage@example.com") { key } }'))).data!.createApiKey.key;
  const accountId = await accountIdOf(email);
  // Periods start on the 5th: this one runs 5 May – 4 June, the previous 5 April – 4 May.
  await t.db.updateTable('accounts').set({ billing_day: 5 }).where('id', '=', accountId).execute();

  for (let i = 0; i < 3; i++) expect((await t.request('/latest?symbols=USD', { key: first })).status).toBe(200);
  expect((await t.request('/convert?from=AUD&to=USD&amount=10', { key: second })).status).toBe(200);
  expect((await t.request('/latest?symbols=XYZ', { key: second })).status).toBe(400);
  const other = await t.createKey('professional', 'someone-else@example.com');
  for (let i = 0; i < 4; i++) await t.request('/latest', { key: other });
  await t.app.usage.flush();
  // Days before these requests: the previous period's last day (4 May) and first day (5 April), a 429 on 6 May.
  const keyId = (await t.db.selectFrom('api_keys').select('id').where('account_id', '=', accountId).orderBy('created_at').executeTakeFirstOrThrow()).id;
  await t.db
    .insertInto('usage_daily')
    .values([
      { day: '2026-04-05', account_id: accountId, key_id: keyId, endpoint: 'Latest', status: 200, requests: 7 },
      { day: '2026-05-04', account_id: accountId, key_id: keyId, endpoint: 'Latest', status: 200, requests: 4 },
      { day: '2026-05-06', account_id: accountId, key_id: keyId, endpoint: 'Latest', status: 429, requests: 2 },
      { day: '2026-04-04', account_id: accountId, key_id: keyId, endpoint: 'Latest', status: 200, requests: 1000 },
    ])
    .execute();

  const browser = await signedIn(email);
  const response = await browser.get('/dashboard/usage');
  expect(response.status).toBe(200);
  const html = await response.text();
  const text = pageText(html);
  expect(text).toContain('This billing period began on 5 May 2026.');
  // the quota's own count (the 2 rows written by hand above are not the quota's), the refused apart
  expect(text).toContain('Used 4 Remaining 49,996 Limit 50,000 Resets 5 June 2026, 00:00 UTC (10:00 in Sydney) Refused, not counted 3 ');
  expect(text).toContain('Previous period 5 April 2026 to 4 May 2026 (Sydney dates): 11 requests counted, 0 refused');
  // the chart: an image with a title and a description, one titled bar per day and period
  expect(html).toMatch(/<svg viewBox="0 0 640 220" role="img" aria-labelledby="chart-title chart-desc">/);
  expect(html).toContain('<title id="chart-title">Requests per day</title>');
  expect(html).toContain('<title>This period, 12 May: 5 requests</title>');
  expect(html).toContain('<title>This period, 6 May: 2 requests</title>');
  expect(html).toContain('<title>Previous period, 4 May: 4 requests</title>');
  expect(html).toContain('<title>Previous period, 5 Apr: 7 requests</title>');
  expect(html.match(/<rect class="bar current"/g)).toHaveLength(31);
  expect(html.match(/<rect class="bar previous"/g)).toHaveLength(30);
  // the same numbers as a table
  expect(text).toContain('12 May 2026 5 12 April 2026 0');
  expect(text).toContain('5 May 2026 0 5 April 2026 7');
  // this period's breakdowns, busiest first
  expect(text).toMatch(/By endpoint Endpoint Requests \/latest 6 \/convert 1 /);
  const [firstPrefix, secondPrefix] = [first, second].map((k) => `${k.split('_')[0]}_…${k.slice(-4)}`);
  expect(text).toContain(`By key Key Requests ${firstPrefix} 5 ${secondPrefix} 2 `);
  expect(text).toContain('By outcome Outcome Requests Success (2xx) 4 Rate limited (429) 2 Client error (4xx) 1 ');
  expect(html).not.toContain(other.split('_')[0]!);
});

it("shows Free's one-time allowance since sign-up, with no previous period", async () => {
  const browser = await signedIn('free-usage@example.com');
  const key = (await t.operator(graphql('mutation { createApiKey(email: "free-usage@example.com") { key } }'))).data!.createApiKey.key;
  expect((await t.request('/latest', { key })).status).toBe(200);
  await t.app.usage.flush();
  const html = await (await browser.get('/dashboard/usage')).text();
  const text = pageText(html);
  expect(text).toContain("The Free plan's requests are a one-time allowance that never resets");
  expect(text).toContain('used since 12 May 2026 (Sydney date)');
  expect(text).toContain('Used 1 Remaining 299 Limit 300 Resets Never: the Free allowance is used once Refused, not counted 0 ');
  expect(text).not.toContain('Previous period');
  expect(html).toContain('<title>Requests, 12 May: 1 request</title>');
  expect(text).toContain('By endpoint Endpoint Requests /latest 1');
});

it('says so when nothing was requested, and sends a signed-out visitor to sign in', async () => {
  const browser = await signedIn('idle@example.com');
  const text = pageText(await (await browser.get('/dashboard/usage')).text());
  expect(text).toContain("No requests with this account's keys yet.");
  const anonymous = await new Browser(t).get('/dashboard/usage');
  expect(anonymous.status).toBe(303);
  expect(anonymous.headers.get('location')).toBe('/dashboard');
});

it('names each endpoint by the path a customer calls, not by an internal name', async () => {
  const email = 'paths@example.com';
  const key = await t.createKey('professional', email);
  for (const path of ['/2026-05-11', '/2026-05-11/USD', '/latest/USD', '/timeseries?start_date=2026-05-01&end_date=2026-05-11&symbols=USD']) {
    expect((await t.request(path, { key })).status, path).toBe(200);
  }
  await t.app.usage.flush();
  const text = pageText(await (await signedIn(email)).get('/dashboard/usage').then((r) => r.text()));
  const byEndpoint = /By endpoint Endpoint Requests (.*?) By key/.exec(text)![1]!;
  expect(byEndpoint.split(/ (?=\/)/).sort()).toEqual(['/timeseries 1', '/{date} 1', '/{date}/{currency} 1', '/latest/{currency} 1'].sort());
  expect(text).not.toMatch(/RateDay|LatestCurrency|TimeSeries/);
});

it("lists a key's restricted (403) and expired (401) answers as refused, not counted, under its account", async () => {
  const email = 'usage-refused@example.com';
  await t.operator(graphql('mutation { createAccount(email: "usage-refused@example.com", plan: professional) { id } }'));
  const create = graphql('mutation($e: EmailAddress!, $r: KeyRestrictionsInput) { createApiKey(email: $e, restrictions: $r) { key } }');
  const restricted = (await t.operator(create, { e: email, r: { allowedEndpoints: ['historical'] } })).data!.createApiKey.key;
  // expiring today (UTC): refused from 00:00 UTC today, as expired
  const expired = (await t.operator(create, { e: email, r: { expiresOn: '2026-05-12' } })).data!.createApiKey.key;
  const refused = await t.request('/latest', { key: restricted });
  expect(refused.status).toBe(403);
  expect(((await refused.json()) as { error: { type: string } }).error.type).toBe('key_restricted');
  expect((await t.request('/latest', { key: expired })).status).toBe(401);
  expect((await t.request('/2026-05-11', { key: restricted })).status).toBe(200);
  await t.app.usage.flush();

  const text = pageText(await (await signedIn(email)).get('/dashboard/usage').then((r) => r.text()));
  expect(text).toContain('Used 1 Remaining 49,999 Limit 50,000');
  expect(text).toContain('Refused, not counted 2 ');
  expect(text).toMatch(/By endpoint Endpoint Requests \/latest 2 \/\{date\} 1 /);
  expect(text).toContain(`${restricted.slice(0, restricted.indexOf('_'))}_…${restricted.slice(-4)} 2`);
  expect(text).toContain(`${expired.slice(0, expired.indexOf('_'))}_…${expired.slice(-4)} 1`);
  expect(text).toMatch(/By outcome Outcome Requests Client error \(4xx\) 2 Success \(2xx\) 1/);
});
