// D17, D35 (docs/decisions.md), docs/api.md §8 rule 1: the quota belongs to the account. All its
// keys share one count, and a plan change (operator `setAccountPlan`) applies the new limit at
// once: between paid plans the period's count carries over; Free's one-time allowance has a count
// of its own.
import { describe, expect, it } from 'vitest';
import { expectError } from '../support/expect.js';
import { syntheticTable } from '../support/rates.js';
import { BILLING_DAY, NOW, PERIOD, RESET, account, anotherKey, expectMonthly, remainingAfterOne, setPlan, stored, storedCounts } from './support.js';
import { appForFile } from '../support/app.js';

const t = appForFile({ now: NOW }, syntheticTable('2026-05-04', '2026-05-11'));

describe('several keys of one account', () => {
  it('share one count', async () => {
    const { email, key: first } = await account(t, 'professional', { billingDay: BILLING_DAY });
    const second = await anotherKey(t, email);
    const third = await anotherKey(t, email);
    const order = [first, second, third, second, first, third, third];
    for (const [i, key] of order.entries()) {
      const res = await t.request('/latest/USD', { key });
      expect(res.status).toBe(200);
      expectMonthly(res.headers, 50_000, 50_000 - (i + 1), RESET);
    }
    expect((await stored(t, email)).used).toBe(order.length);
  });

  it('are all refused once the account is at its quota, and another account is not affected', async () => {
    const { email, key: first } = await account(t, 'professional', { billingDay: BILLING_DAY, used: 49_998, period: PERIOD });
    const second = await anotherKey(t, email);
    const other = await account(t, 'professional', { billingDay: BILLING_DAY, used: 49_998, period: PERIOD });
    expectMonthly((await t.request('/latest', { key: first })).headers, 50_000, 1, RESET);
    expectMonthly((await t.request('/latest', { key: second })).headers, 50_000, 0, RESET);
    expectError(await t.json('/latest', { key: first }), 429, 'rate_limit_exceeded');
    expectError(await t.json('/latest', { key: second }), 429, 'rate_limit_exceeded');
    expect(await remainingAfterOne(t, other.key)).toBe(1);
    expect((await stored(t, email)).used).toBe(50_000);
    expect((await stored(t, other.email)).used).toBe(49_999);
  });
});

describe('a plan change', () => {
  it("upgrade: the new limit applies at once, the period's count is kept, the same key works", async () => {
    const { email, key } = await account(t, 'starter', { billingDay: BILLING_DAY, used: 5_000, period: PERIOD });
    expectError(await t.json('/latest', { key }), 429, 'rate_limit_exceeded', /5,?000/);
    await setPlan(t, email, 'professional');
    const res = await t.request('/latest', { key });
    expect(res.status).toBe(200);
    expectMonthly(res.headers, 50_000, 50_000 - 5_001, RESET);
    expect(await stored(t, email)).toEqual({ used: 5_001, period: PERIOD, billingDay: BILLING_DAY });
  });

  it('downgrade: a count above the new limit is 429 at once', async () => {
    const { email, key } = await account(t, 'professional', { billingDay: BILLING_DAY, used: 6_000, period: PERIOD });
    expect(await remainingAfterOne(t, key)).toBe(43_999);
    await setPlan(t, email, 'starter');
    const res = await t.json('/latest', { key });
    expectError(res, 429, 'rate_limit_exceeded', /5,?000/);
    expectMonthly(res.headers, 5_000, 0, RESET);
    expect((await stored(t, email)).used).toBe(6_001);
  });

  it('downgrade below the count, then back: the count is what it was', async () => {
    const { email, key } = await account(t, 'business', { billingDay: BILLING_DAY, used: 60_000, period: PERIOD });
    await setPlan(t, email, 'professional');
    expectError(await t.json('/latest', { key }), 429, 'rate_limit_exceeded');
    await setPlan(t, email, 'business');
    expect(await remainingAfterOne(t, key)).toBe(500_000 - 60_001);
  });
});

// D35: Free's allowance is a count of its own, apart from the paid plans' monthly count.
describe('a plan change to or from Free', () => {
  it("Free → paid starts the paid plan's first period at 0, and Free's count stays as it stood", async () => {
    const { email, key } = await account(t, 'free', { billingDay: BILLING_DAY, used: 250 });
    expectMonthly((await t.request('/latest', { key })).headers, 300, 49, null);
    await setPlan(t, email, 'starter');
    const res = await t.request('/latest', { key });
    expect(res.status).toBe(200);
    expectMonthly(res.headers, 5_000, 4_999, RESET);
    expect(await storedCounts(t, email)).toMatchObject({ freeUsed: 251, monthlyUsed: 1, period: PERIOD });
  });

  it("Free → paid starts at 0 even after a paid month's count was carried to Free and back", async () => {
    const { email, key } = await account(t, 'professional', { billingDay: BILLING_DAY, used: 1_000, period: PERIOD });
    await setPlan(t, email, 'free');
    expect((await t.request('/latest', { key })).status).toBe(200);
    await setPlan(t, email, 'professional');
    expectMonthly((await t.request('/latest', { key })).headers, 50_000, 49_999, RESET);
    expect(await storedCounts(t, email)).toMatchObject({ freeUsed: 1, monthlyUsed: 1 });
  });

  it("paid → Free continues Free's own lifetime count; the paid count is left as it was", async () => {
    const { email, key } = await account(t, 'free', { billingDay: BILLING_DAY, used: 120 });
    await setPlan(t, email, 'professional');
    for (let i = 0; i < 5; i++) expect((await t.request('/latest', { key })).status).toBe(200);
    await setPlan(t, email, 'free');
    const res = await t.request('/latest', { key });
    expect(res.status).toBe(200);
    expectMonthly(res.headers, 300, 300 - 121, null);
    expect(await storedCounts(t, email)).toMatchObject({ plan: 'free', freeUsed: 121, monthlyUsed: 5, period: PERIOD });
  });

  it('paid → Free with the allowance used up is 429 at once, however little of the paid month was used', async () => {
    const { email, key } = await account(t, 'free', { billingDay: BILLING_DAY, used: 300 });
    expectError(await t.json('/latest', { key }), 429, 'rate_limit_exceeded', /one-time allowance of 300/);
    await setPlan(t, email, 'business');
    expect((await t.request('/latest', { key })).status).toBe(200);
    await setPlan(t, email, 'free');
    const res = await t.json('/latest', { key });
    expectError(res, 429, 'rate_limit_exceeded', /one-time allowance of 300/);
    expectMonthly(res.headers, 300, 0, null);
    expect(await storedCounts(t, email)).toMatchObject({ freeUsed: 300, monthlyUsed: 1 });
  });
});
