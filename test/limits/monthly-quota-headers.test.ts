// docs/api.md §8 rules 1, 3, 4 and D17, D24, D25 (docs/decisions.md): every successful keyed data
// response carries the monthly quota headers and takes one unit (304 and HEAD included); `/`,
// `/status`, `/symbols`, OPTIONS and failed requests (400, 401, 403, 404, 405) carry none of them
// and take nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/expect.js';
import { syntheticTable } from '../support/rates.js';
import { BILLING_DAY, MONTHLY, NOW, PERIOD, RESET, account, expectMonthly, expectNoRateLimitHeaders, remainingAfterOne, setQuota, stored } from './support.js';
import { appForFile } from '../support/app.js';
import { graphql } from '../../src/graphql.js';

const t = appForFile({ now: NOW }, syntheticTable('2026-03-02', '2026-05-11'));

// One successful request per keyed data endpoint (HEAD included).
const KEYED: [string, string][] = [
  ['GET', '/latest'],
  ['GET', '/latest?symbols=USD,EUR'],
  ['GET', '/latest/USD'],
  ['GET', '/2026-05-11'],
  ['GET', '/2026-05-11/JPY'],
  ['GET', '/timeseries?start_date=2026-05-04&end_date=2026-05-08'],
  ['GET', '/convert?from=USD&to=EUR&amount=10'],
  ['GET', '/convert?from=USD&to=EUR&amount=10&date=2026-05-08'],
  ['HEAD', '/latest'],
  ['HEAD', '/2026-05-11/USD'],
];

describe('headers on keyed responses', () => {
  it('every successful keyed request shows the plan quota, one unit less each time, and the next billing date', async () => {
    const { email, key } = await account(t, 'professional', { billingDay: BILLING_DAY });
    let remaining = MONTHLY.professional;
    for (const [method, path] of KEYED) {
      const res = await t.request(path, { key, method });
      expect(res.status, `${method} ${path}`).toBe(200);
      remaining -= 1;
      expectMonthly(res.headers, 50_000, remaining, RESET);
      expect(res.headers.get('retry-after')).toBeNull();
    }
    expect(await stored(t, email)).toEqual({ used: KEYED.length, period: PERIOD, billingDay: BILLING_DAY });
  });

  it.each([
    ['starter', 5_000],
    ['professional', 50_000],
    ['business', 500_000],
    ['enterprise', 5_000_000],
  ] as const)('%s: X-RateLimit-Limit-Monthly is %i', async (plan, limit) => {
    const { key } = await account(t, plan, { billingDay: BILLING_DAY });
    const res = await t.request('/latest/USD', { key });
    expect(res.status).toBe(200);
    expectMonthly(res.headers, limit, limit - 1, RESET);
  });

  it('Free: 300, and no X-RateLimit-Reset (the allowance never resets)', async () => {
    const { email, key } = await account(t, 'free', { billingDay: BILLING_DAY });
    const first = await t.request('/latest', { key });
    expect(first.status).toBe(200);
    expectMonthly(first.headers, 300, 299, null);
    const second = await t.request('/convert?from=USD&to=EUR&amount=1', { key });
    expect(second.status).toBe(200);
    expectMonthly(second.headers, 300, 298, null);
    expect((await stored(t, email)).used).toBe(2);
  });

  it('the reset is the billing date at 00:00 UTC, also when it is later this month (billing day 12, today at 03:00 UTC)', async () => {
    // Billing day 12: the period began today at 00:00 UTC, so the reset is 12 June.
    const { email, key } = await account(t, 'starter', { billingDay: 12 });
    const res = await t.request('/latest', { key });
    expectMonthly(res.headers, 5_000, 4_999, '2026-06-12T00:00:00.000Z');
    expect((await stored(t, email)).period).toBe('2026-05-12');
    const late = await account(t, 'starter', { billingDay: 13 });
    expectMonthly((await t.request('/latest', { key: late.key })).headers, 5_000, 4_999, '2026-05-13T00:00:00.000Z');
  });
});

describe('what never counts', () => {
  let key: string;
  beforeAll(async () => {
    ({ key } = await account(t, 'professional', { billingDay: BILLING_DAY }));
  });

  it.each(['/', '/status', '/symbols'])('%s with a key carries no rate-limit header and takes nothing', async (path) => {
    const before = await remainingAfterOne(t, key);
    for (let i = 0; i < 3; i++) {
      const res = await t.request(path, { key });
      expect(res.status).toBe(200);
      expectNoRateLimitHeaders(res.headers);
    }
    expect(await remainingAfterOne(t, key)).toBe(before - 1);
  });

  it('400, 401 (suspended account), 403, 404 and 405 leave the quota as it was', async () => {
    const { email: starterEmail, key: starter } = await account(t, 'starter', { billingDay: BILLING_DAY });
    const before = await remainingAfterOne(t, starter);
    expectError(await t.json('/latest?symbols=XYZ', { key: starter }), 400, 'bad_request');
    expectError(await t.json('/2026-02-30', { key: starter }), 400, 'bad_request');
    expectError(await t.json('/convert?from=USD&to=TWI&amount=1', { key: starter }), 400, 'bad_request');
    expectError(await t.json('/convert?from=USD&to=EUR&amount=-1', { key: starter }), 400, 'bad_request');
    expectError(await t.json('/2026-03-02', { key: starter }), 403, 'plan_restricted'); // beyond Starter's 30 days
    expectError(await t.json('/timeseries?start_date=2026-05-01&end_date=2026-05-11', { key: starter }), 403, 'plan_restricted');
    expectError(await t.json('/2026-05-10', { key: starter }), 404, 'not_found'); // a Sunday
    expectError(await t.json('/timeseries?start_date=2026-05-09&end_date=2026-05-10', { key: starter }), 404, 'not_found');
    expectError(await t.json('/latest', { key: starter, method: 'POST' }), 405, 'method_not_allowed');
    expect((await t.request('/latest', { key: starter, method: 'OPTIONS' })).status).toBe(204);
    expect((await stored(t, starterEmail)).used).toBe(1);

    await t.operator(graphql('mutation($e: EmailAddress!) { setAccountStatus(email: $e, status: suspended) { id } }'), { e: starterEmail });
    expectError(await t.json('/latest', { key: starter }), 401, 'account_suspended');
    await t.operator(graphql('mutation($e: EmailAddress!) { setAccountStatus(email: $e, status: active) { id } }'), { e: starterEmail });
    expect((await stored(t, starterEmail)).used).toBe(1);
    expect(await remainingAfterOne(t, starter)).toBe(before - 1);
  });
});

describe('what counts', () => {
  it('a 304 (If-None-Match) counts like a 200 and carries the headers', async () => {
    const { email, key } = await account(t, 'professional', { billingDay: BILLING_DAY });
    const first = await t.request('/latest?symbols=USD', { key });
    const etag = first.headers.get('etag')!;
    expect(etag).toBeTruthy();
    expectMonthly(first.headers, 50_000, 49_999, RESET);
    const notModified = await t.request('/latest?symbols=USD', { key, headers: { 'If-None-Match': etag } });
    expect(notModified.status).toBe(304);
    expect(await notModified.text()).toBe('');
    expectMonthly(notModified.headers, 50_000, 49_998, RESET);
    expect((await stored(t, email)).used).toBe(2);
    expect(await remainingAfterOne(t, key)).toBe(49_997);
  });

  it('HEAD counts', async () => {
    const { email, key } = await account(t, 'business', { billingDay: BILLING_DAY });
    for (let i = 1; i <= 3; i++) {
      const res = await t.request('/latest/EUR', { key, method: 'HEAD' });
      expect(res.status).toBe(200);
      expectMonthly(res.headers, 500_000, 500_000 - i, RESET);
    }
    expect((await stored(t, email)).used).toBe(3);
  });

  it('keyed /convert counts against the monthly quota, not the keyless hourly limit', async () => {
    const { email, key } = await account(t, 'starter', { billingDay: BILLING_DAY });
    for (let i = 1; i <= 5; i++) {
      const res = await t.request('/convert?from=EUR&to=GBP&amount=3', { key });
      expect(res.status).toBe(200);
      expectMonthly(res.headers, 5_000, 5_000 - i, RESET);
      expect(res.headers.get('x-ratelimit-remaining')).toBeNull();
    }
    expect((await stored(t, email)).used).toBe(5);
  });

  it("a count from an earlier period is not this period's: it starts again", async () => {
    const { email, key } = await account(t, 'starter', { billingDay: BILLING_DAY, used: 4_000, period: '2026-03-20' });
    expect(await remainingAfterOne(t, key)).toBe(4_999);
    expect(await stored(t, email)).toEqual({ used: 1, period: PERIOD, billingDay: BILLING_DAY });
    await setQuota(t, email, { used: 4_000 });
    expect(await remainingAfterOne(t, key)).toBe(999);
  });
});
