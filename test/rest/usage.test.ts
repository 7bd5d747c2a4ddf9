// GET /usage (D46 in docs/decisions.md): where the key's account stands this period, equal to the
// X-RateLimit-* headers of the request answered just before; the key's cap and use; each endpoint's
// counted requests. Never counted, answered with the quota spent, open to every key whatever its
// allowed endpoints.
import { describe, expect, it } from 'vitest';
import { graphql } from '../../src/graphql.js';
import { BILLING_DAY, MONTHLY, NOW, PERIOD, RESET, account, monthly } from '../limits/support.js';
import { appForFile, type TestApp } from '../support/app.js';
import { expectError } from '../support/expect.js';

const t = appForFile({ now: NOW }, 'f11.1-data.csv');

const RESTRICT = graphql(`
  mutation ($prefix: Text!, $restrictions: KeyRestrictionsInput) {
    restrictApiKey(prefix: $prefix, restrictions: $restrictions) {
      id
    }
  }
`);

async function restrict(app: TestApp, key: string, restrictions: { allowedEndpoints?: string[]; monthlyCap?: number }): Promise<void> {
  const result = await app.operator(RESTRICT, { prefix: key.split('_')[0]!, restrictions });
  expect(result.errors).toBeUndefined();
}

/** A keyed GET that must succeed; its quota headers. */
async function counted(key: string, path: string, headers: Record<string, string> = {}) {
  const response = await t.request(path, { key, headers });
  expect(response.status, path).toBeLessThan(400);
  return monthly(response.headers);
}

describe('GET /usage', () => {
  it('equals the X-RateLimit-* headers of the request answered just before, and counts each endpoint', async () => {
    const { key } = await account(t, 'business', { billingDay: BILLING_DAY, used: 10, period: PERIOD });
    await counted(key, '/latest');
    await counted(key, '/latest/USD');
    await counted(key, '/2023-01-03?symbols=USD');
    await counted(key, '/timeseries?start_date=2023-01-01&end_date=2023-01-31');
    await counted(key, '/convert?from=USD&to=EUR&amount=100');
    await counted(key, '/export?symbols=USD');
    // never counted, or refused: not among the endpoints
    expect((await t.request('/symbols', { key })).status).toBe(200);
    expect((await t.request('/calendar?year=2026', { key })).status).toBe(200);
    expectError(await t.json('/2024-01-06', { key }), 404, 'not_found');
    const last = await counted(key, '/averages?period=2023-01');

    const { status, body, headers } = await t.json('/usage', { key });
    expect(status).toBe(200);
    expect(headers.get('cache-control')).toBe('no-store');
    expect(headers.get('x-ratelimit-remaining-monthly')).toBeNull(); // it takes no unit, so says nothing of one
    expect(body).toMatchObject({
      success: true,
      plan: 'business',
      period_start: `${PERIOD}T00:00:00.000Z`,
      period_end: RESET,
      limit: last.limit,
      used: 10 + 7,
      remaining: last.remaining,
      key: { prefix: key.split('_')[0], monthly_cap: null },
    });
    expect(body.period_end).toBe(last.reset);
    expect(body.limit).toBe(MONTHLY.business);

    // the usage records are written every few seconds: once written, each endpoint has its requests
    await t.app.usage.flush();
    const { body: after } = await t.json('/usage', { key });
    expect(after.endpoints).toEqual({ latest: 2, historical: 1, timeseries: 1, convert: 1, fluctuation: 0, averages: 1, export: 1, mcp: 0 });
    expect(after.key.used).toBe(7);
    expect(after.used).toBe(body.used);
  });

  it('is never counted, and answers with the quota spent', async () => {
    const { key } = await account(t, 'starter', { billingDay: BILLING_DAY, used: MONTHLY.starter - 1, period: PERIOD });
    const last = await counted(key, '/latest');
    expect(last.remaining).toBe(0);
    for (let i = 0; i < 3; i++) expect((await t.json('/usage', { key })).body).toMatchObject({ used: MONTHLY.starter, remaining: 0 });
    expectError(await t.json('/latest', { key }), 429, 'rate_limit_exceeded');
    expect((await t.json('/usage', { key })).status).toBe(200);
  });

  it("Free: its one-time allowance, which has no end, from the account's making", async () => {
    const { key, email } = await account(t, 'free', { used: 4 });
    const last = await counted(key, '/latest');
    const { body } = await t.json('/usage', { key });
    const created = await t.db.selectFrom('accounts').select('created_at').where('email', '=', email).executeTakeFirstOrThrow();
    expect(body).toMatchObject({ plan: 'free', period_end: null, limit: 300, used: 5, remaining: last.remaining });
    expect(body.period_start).toBe(new Date(created.created_at).toISOString());
  });

  it('a capped key: its cap and its use, and what is left of the cap when that is less, as the header says', async () => {
    const { key } = await account(t, 'professional', { billingDay: BILLING_DAY, used: 100, period: PERIOD });
    await restrict(t, key, { monthlyCap: 5 });
    await counted(key, '/latest');
    const last = await counted(key, '/latest/EUR');
    const { body } = await t.json('/usage', { key });
    expect(body).toMatchObject({ used: 102, remaining: 3, key: { monthly_cap: 5, used: 2 } });
    expect(body.remaining).toBe(last.remaining);
  });

  it('is open to a key limited to other endpoints', async () => {
    const { key } = await account(t, 'professional');
    await restrict(t, key, { allowedEndpoints: ['latest'] });
    expect((await t.json('/usage', { key })).status).toBe(200);
    expectError(await t.json('/timeseries?start_date=2023-01-01&end_date=2023-01-31', { key }), 403, 'key_restricted');
  });

  it('refuses a missing or invalid key, a parameter, another method', async () => {
    expectError(await t.json('/usage'), 401, 'invalid_api_key');
    expectError(await t.json('/usage', { key: 'bondi_xxx' }), 401, 'invalid_api_key');
    const { key } = await account(t, 'professional');
    expectError(await t.json('/usage?period=2024', { key }), 400, 'bad_request', /Unknown parameter 'period'/);
    expectError(await t.json('/usage', { key, method: 'POST' }), 405, 'method_not_allowed');
  });
});
