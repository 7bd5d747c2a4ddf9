// docs/api.md §7, §8 rule 1, D11, D12, D16, D17 (docs/decisions.md): a used-up monthly quota is 429
// `rate_limit_exceeded` stating the quota and that it resets on the next billing cycle, with
// Retry-After to the reset; 429 comes after every other check; Free's 300 is one-time and never
// resets.
import { afterEach, describe, expect, it } from 'vitest';
import { expectError } from '../support/expect.js';
import { syntheticTable } from '../support/rates.js';
import { BILLING_DAY, NOW, PERIOD, RESET, account, expectMonthly, secondsBetween, setQuota, stored } from './support.js';
import { appForFile } from '../support/app.js';

const SECONDS_TO_RESET = secondsBetween(NOW, RESET); // 7 days 21 hours = 680400

const t = appForFile({ now: NOW }, syntheticTable('2026-03-02', '2026-05-11'));
afterEach(() => t.setNow(NOW));

describe('a paid plan at its monthly quota', () => {
  it('is 429 rate_limit_exceeded with the quota, the next billing cycle, Retry-After and Remaining 0', async () => {
    expect(SECONDS_TO_RESET).toBe(680_400);
    const { email, key } = await account(t, 'professional', { billingDay: BILLING_DAY, used: 50_000, period: PERIOD });
    for (const path of [
      '/latest',
      '/latest/USD',
      '/2026-05-11',
      '/timeseries?start_date=2026-05-04&end_date=2026-05-08',
      '/convert?from=USD&to=EUR&amount=1',
    ]) {
      const res = await t.json(path, { key });
      expectError(res, 429, 'rate_limit_exceeded');
      expect(res.body.error.info).toMatch(/50,?000/);
      expect(res.body.error.info).toMatch(/monthly quota/i);
      expect(res.body.error.info).toMatch(/resets on the next billing cycle/);
      expect(res.headers.get('retry-after')).toBe(String(SECONDS_TO_RESET));
      expectMonthly(res.headers, 50_000, 0, RESET);
      expect(res.headers.get('x-request-id')).toBeTruthy();
    }
    expect(await stored(t, email)).toEqual({ used: 50_000, period: PERIOD, billingDay: BILLING_DAY });
  });

  it('the last unit is served with Remaining 0, the next request is 429', async () => {
    const { email, key } = await account(t, 'starter', { billingDay: BILLING_DAY, used: 4_999, period: PERIOD });
    const last = await t.request('/latest', { key });
    expect(last.status).toBe(200);
    expectMonthly(last.headers, 5_000, 0, RESET);
    const over = await t.json('/latest', { key });
    expectError(over, 429, 'rate_limit_exceeded', /5,?000.*Starter|Starter.*5,?000/);
    expect((await stored(t, email)).used).toBe(5_000);
  });

  it('Retry-After counts down with the clock', async () => {
    const { key } = await account(t, 'starter', { billingDay: BILLING_DAY, used: 5_000, period: PERIOD });
    t.setNow('2026-05-19T23:00:00Z');
    const res = await t.json('/latest', { key });
    expectError(res, 429, 'rate_limit_exceeded');
    expect(res.headers.get('retry-after')).toBe('3600');
    t.setNow('2026-05-19T23:59:30Z');
    expect((await t.request('/latest', { key })).headers.get('retry-after')).toBe('30');
  });

  it('a 429 carries no ETag (the tag belongs to the refused answer, whose body is not sent), also on a request that would be 304', async () => {
    const { key: spare } = await account(t, 'professional', { billingDay: BILLING_DAY, used: 0, period: PERIOD });
    const tag = (await t.request('/2026-05-11', { key: spare })).headers.get('etag')!;
    expect(tag).toBeTruthy();
    const { key } = await account(t, 'professional', { billingDay: BILLING_DAY, used: 50_000, period: PERIOD });
    for (const headers of [{}, { 'If-None-Match': tag }] as Record<string, string>[]) {
      const res = await t.json('/2026-05-11', { key, headers });
      expectError(res, 429, 'rate_limit_exceeded');
      expect(res.headers.get('etag')).toBeNull();
    }
  });

  it('HEAD of an exhausted quota is 429 without a body', async () => {
    const { key } = await account(t, 'business', { billingDay: BILLING_DAY, used: 500_000, period: PERIOD });
    const res = await t.request('/latest', { key, method: 'HEAD' });
    expect(res.status).toBe(429);
    expect(await res.text()).toBe('');
    expect(res.headers.get('retry-after')).toBe(String(SECONDS_TO_RESET));
    expectMonthly(res.headers, 500_000, 0, RESET);
  });
});

describe('D11: 429 comes last', () => {
  it('an exhausted account still gets 400, 403 and 404 for such requests, and 200 on unlimited endpoints', async () => {
    const { email, key } = await account(t, 'starter', { billingDay: BILLING_DAY, used: 5_000, period: PERIOD });
    expectError(await t.json('/latest?symbols=XYZ', { key }), 400, 'bad_request');
    expectError(await t.json('/convert?from=USD&to=TWI&amount=1', { key }), 400, 'bad_request');
    expectError(await t.json('/2026-03-02', { key }), 403, 'plan_restricted');
    expectError(await t.json('/timeseries?start_date=2026-05-01&end_date=2026-05-11', { key }), 403, 'plan_restricted');
    expectError(await t.json('/2026-05-10', { key }), 404, 'not_found');
    for (const path of ['/', '/status', '/symbols']) expect((await t.request(path, { key })).status).toBe(200);
    expectError(await t.json('/latest', { key }), 429, 'rate_limit_exceeded');
    expect((await stored(t, email)).used).toBe(5_000);
  });
});

describe('Free: 300 requests once (D16)', () => {
  it('at 300 used it is 429, says the allowance does not reset, and has no X-RateLimit-Reset', async () => {
    const { email, key } = await account(t, 'free', { billingDay: 12, used: 300 });
    const res = await t.json('/latest', { key });
    expectError(res, 429, 'rate_limit_exceeded', /300/);
    expect(res.body.error.info).not.toMatch(/resets on the next billing cycle/);
    expectMonthly(res.headers, 300, 0, null);
    expect((await stored(t, email)).used).toBe(300);
  });

  it('months later, and past its billing day, it is still 429', async () => {
    const { key } = await account(t, 'free', { billingDay: 12, used: 300 });
    for (const later of ['2026-06-12T00:00:00Z', '2026-09-12T03:00:00Z', '2027-05-12T03:00:00Z']) {
      t.setNow(later);
      const res = await t.json('/latest', { key });
      expectError(res, 429, 'rate_limit_exceeded');
      expectMonthly(res.headers, 300, 0, null);
    }
  });

  it('the 300th request is served (Remaining 0), the 301st is not, whatever the date', async () => {
    const { email, key } = await account(t, 'free', { billingDay: 1, used: 298 });
    const a = await t.request('/latest', { key });
    expectMonthly(a.headers, 300, 1, null);
    t.setNow('2026-08-01T00:00:00Z'); // a "billing date" of day 1: nothing resets on Free
    const b = await t.request('/latest/USD', { key });
    expect(b.status).toBe(200);
    expectMonthly(b.headers, 300, 0, null);
    expectError(await t.json('/latest', { key }), 429, 'rate_limit_exceeded');
    expect((await stored(t, email)).used).toBe(300);
    await setQuota(t, email, { billingDay: 2 });
    t.setNow('2026-09-02T00:00:00Z');
    expectError(await t.json('/latest', { key }), 429, 'rate_limit_exceeded');
  });
});
