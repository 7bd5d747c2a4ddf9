// docs/api.md §8 rule 1, D17 (docs/decisions.md): a paid quota resets on the account's billing day
// at 00:00 UTC (a billing day past the month's end falls back to the month's last day), driven by
// the injected clock.
import { describe, expect, it } from 'vitest';
import { expectError } from '../support/expect.js';
import { syntheticTable } from '../support/rates.js';
import { account, expectMonthly, remainingAfterOne, stored } from './support.js';
import { appForFile } from '../support/app.js';

const t = appForFile({ now: '2026-01-05T03:00:00Z' }, syntheticTable('2025-12-01', '2025-12-05'));

interface Case {
  name: string;
  billingDay: number;
  /** the period the full count belongs to */
  period: string;
  /** one second before the reset */
  before: string;
  /** the reset instant */
  reset: string;
  /** the reset after that */
  nextReset: string;
}

const CASES: Case[] = [
  {
    name: 'billing day 15',
    billingDay: 15,
    period: '2026-04-15',
    before: '2026-05-14T23:59:59Z',
    reset: '2026-05-15T00:00:00.000Z',
    nextReset: '2026-06-15T00:00:00.000Z',
  },
  {
    name: 'billing day 31 in June resets on the 30th',
    billingDay: 31,
    period: '2026-05-31',
    before: '2026-06-29T23:59:59Z',
    reset: '2026-06-30T00:00:00.000Z',
    nextReset: '2026-07-31T00:00:00.000Z',
  },
  {
    name: 'billing day 31 in February resets on the 28th',
    billingDay: 31,
    period: '2026-01-31',
    before: '2026-02-27T23:59:59Z',
    reset: '2026-02-28T00:00:00.000Z',
    nextReset: '2026-03-31T00:00:00.000Z',
  },
  {
    name: 'billing day 31 in a leap February resets on the 29th',
    billingDay: 31,
    period: '2028-01-31',
    before: '2028-02-28T23:59:59Z',
    reset: '2028-02-29T00:00:00.000Z',
    nextReset: '2028-03-31T00:00:00.000Z',
  },
  {
    name: 'billing day 30 in February resets on the 28th',
    billingDay: 30,
    period: '2027-01-30',
    before: '2027-02-27T23:59:59Z',
    reset: '2027-02-28T00:00:00.000Z',
    nextReset: '2027-03-30T00:00:00.000Z',
  },
  {
    name: 'billing day 5 across the new year',
    billingDay: 5,
    period: '2026-12-05',
    before: '2027-01-04T23:59:59Z',
    reset: '2027-01-05T00:00:00.000Z',
    nextReset: '2027-02-05T00:00:00.000Z',
  },
  {
    name: 'billing day 1 on 1 January',
    billingDay: 1,
    period: '2026-12-01',
    before: '2026-12-31T23:59:59Z',
    reset: '2027-01-01T00:00:00.000Z',
    nextReset: '2027-02-01T00:00:00.000Z',
  },
];

describe('the quota resets on the billing day at 00:00 UTC', () => {
  it.each(CASES)('$name', async ({ billingDay, period, before, reset, nextReset }) => {
    const { email, key } = await account(t, 'starter', { billingDay, used: 5_000, period });

    t.setNow(before);
    const exhausted = await t.json('/latest', { key });
    expectError(exhausted, 429, 'rate_limit_exceeded', /next billing cycle/);
    expect(exhausted.headers.get('retry-after')).toBe('1');
    expectMonthly(exhausted.headers, 5_000, 0, reset);
    expect(await stored(t, email)).toEqual({ used: 5_000, period, billingDay });

    t.setNow(reset);
    const fresh = await t.request('/latest', { key });
    expect(fresh.status).toBe(200);
    expectMonthly(fresh.headers, 5_000, 4_999, nextReset);
    expect(await stored(t, email)).toEqual({ used: 1, period: reset.slice(0, 10), billingDay });
    expect(await remainingAfterOne(t, key)).toBe(4_998);

    // Later in the new period the count goes on; one second before the next reset it is still this period.
    t.setNow(new Date(Date.parse(nextReset) - 1000).toISOString());
    const late = await t.request('/latest', { key });
    expectMonthly(late.headers, 5_000, 4_997, nextReset);
    expect(late.headers.get('retry-after')).toBeNull();
  });
});

describe('a request some time after the billing date', () => {
  it('starts the new period even when the last request was several periods ago', async () => {
    const { email, key } = await account(t, 'professional', { billingDay: 10, used: 50_000, period: '2026-01-10' });
    t.setNow('2026-04-11T12:00:00Z');
    const res = await t.request('/latest', { key });
    expect(res.status).toBe(200);
    expectMonthly(res.headers, 50_000, 49_999, '2026-05-10T00:00:00.000Z');
    expect(await stored(t, email)).toEqual({ used: 1, period: '2026-04-10', billingDay: 10 });
  });

  it('the count of a period never spills into the next: a full period, then a new one with one unit used', async () => {
    const { email, key } = await account(t, 'starter', { billingDay: 28, used: 4_999, period: '2026-02-28' });
    t.setNow('2026-03-27T23:59:59Z');
    expectMonthly((await t.request('/latest', { key })).headers, 5_000, 0, '2026-03-28T00:00:00.000Z');
    expectError(await t.json('/latest', { key }), 429, 'rate_limit_exceeded');
    t.setNow('2026-03-28T00:00:01Z');
    expectMonthly((await t.request('/latest', { key })).headers, 5_000, 4_999, '2026-04-28T00:00:00.000Z');
    expect((await stored(t, email)).used).toBe(1);
  });
});
