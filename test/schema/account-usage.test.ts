// The Usage page's periods and sums (Account.usage): billing periods (D17 in docs/decisions.md) as
// the Sydney dates usage is recorded under, Free's one allowance since sign-up (D35), and a
// period's days, totals and groups from the account's daily totals and groups. Pure.
import { describe, expect, it } from 'vitest';
import type { AccountUsageGroup } from '../../src/db/loaders/usage-groups-by-account.js';
import { summarisePeriod, usagePeriods } from '../../src/schema/account-usage.js';

const paid = (billingDay: number) => ({ plan: 'professional' as const, billing_day: billingDay, created_at: new Date('2025-01-01T00:00:00Z') });

describe('usagePeriods', () => {
  it('runs a paid period from its billing day to the day before the next, with the previous one before it', () => {
    expect(usagePeriods(paid(5), new Date('2026-05-12T03:00:00Z'))).toEqual({
      current: { from: '2026-05-05', to: '2026-06-04' },
      previous: { from: '2026-04-05', to: '2026-05-04' },
    });
  });

  it('takes a billing day a month lacks as its last day', () => {
    expect(usagePeriods(paid(31), new Date('2026-03-15T00:00:00Z'))).toEqual({
      current: { from: '2026-02-28', to: '2026-03-30' },
      previous: { from: '2026-01-31', to: '2026-02-27' },
    });
  });

  it("reaches today in Sydney during a period's last hours, when Sydney's date is already the next period's first", () => {
    // 20:00 UTC on 4 June is 06:00 on 5 June in Sydney
    expect(usagePeriods(paid(5), new Date('2026-06-04T20:00:00Z')).current).toEqual({ from: '2026-05-05', to: '2026-06-05' });
  });

  it('gives Free one period from the Sydney date of sign-up to today, and no previous one', () => {
    const free = { plan: 'free' as const, billing_day: 1, created_at: new Date('2026-05-01T15:00:00Z') };
    expect(usagePeriods(free, new Date('2026-05-12T03:00:00Z'))).toEqual({ current: { from: '2026-05-02', to: '2026-05-12' }, previous: null });
    // an account stamped a moment ahead of the service's clock still has a period of one day
    expect(usagePeriods(free, new Date('2026-04-30T03:00:00Z')).current).toEqual({ from: '2026-04-30', to: '2026-04-30' });
  });
});

describe('summarisePeriod', () => {
  const daily = [
    { day: '2026-05-04', requests: 100 }, // the day before
    { day: '2026-05-05', requests: 5 },
    { day: '2026-05-07', requests: 5 },
  ];
  const group = (fields: Partial<AccountUsageGroup>, requests: number): AccountUsageGroup => ({
    endpoint: null,
    key_id: null,
    key_prefix: null,
    key_last_four: null,
    status: null,
    ...fields,
    requests,
  });
  const groups = [
    group({ endpoint: 'Latest' }, 8),
    group({ endpoint: 'Convert' }, 2),
    group({ key_id: '2', key_prefix: 'p2', key_last_four: 'l2' }, 3),
    group({ key_id: '1', key_prefix: 'p1', key_last_four: 'l1' }, 7),
    group({ status: 200 }, 2),
    group({ status: 204 }, 1),
    group({ status: 304 }, 4),
    group({ status: 429 }, 2),
    group({ status: 404 }, 1),
  ];

  it('counts each day of the range, 0 included, and groups the range by endpoint, key and outcome, busiest first', () => {
    const usage = summarisePeriod(daily, groups, { from: '2026-05-05', to: '2026-05-08' });
    expect(usage.days).toEqual([
      { day: '2026-05-05', requests: 5 },
      { day: '2026-05-06', requests: 0 },
      { day: '2026-05-07', requests: 5 },
      { day: '2026-05-08', requests: 0 },
    ]);
    expect(usage.totalRequests).toBe(10);
    // the 429s and the 404: what the quota never counts
    expect(usage.refusedRequests).toBe(3);
    expect(usage.byEndpoint).toEqual([
      { endpoint: 'Latest', requests: 8 },
      { endpoint: 'Convert', requests: 2 },
    ]);
    expect(usage.byKey).toEqual([
      { keyId: '1', prefix: 'p1', lastFour: 'l1', requests: 7 },
      { keyId: '2', prefix: 'p2', lastFour: 'l2', requests: 3 },
    ]);
    expect(usage.byOutcome).toEqual([
      { outcome: 'NOT_MODIFIED', requests: 4 },
      { outcome: 'SUCCESS', requests: 3 },
      { outcome: 'RATE_LIMITED', requests: 2 },
      { outcome: 'CLIENT_ERROR', requests: 1 },
    ]);
  });

  it('lists at most the last 31 days of a longer range, but totals all of it', () => {
    const usage = summarisePeriod(daily, [], { from: '2026-04-01', to: '2026-06-30' });
    expect(usage.days).toHaveLength(31);
    expect(usage.days[0]!.day).toBe('2026-05-31');
    expect(usage.days.at(-1)!.day).toBe('2026-06-30');
    expect(usage.totalRequests).toBe(110);
  });
});
