// `accountStats` answers exactly from accounts the test made: counts by plan and status, sign-ups
// per Sydney day, and the accounts at or above a share of their current period's quota.
import { describe, expect, it } from 'vitest';
import { syntheticTable } from '../support/rates.js';
import { NOW, PERIOD, account } from '../limits/support.js';
import { appForFile } from '../support/app.js';
import { graphql } from '../../src/graphql.js';

// NOW is 2026-05-12 03:00 UTC, 13:00 in Sydney; billing day 20 puts the period at 2026-04-20
const t = appForFile({ now: NOW }, syntheticTable('2026-05-04', '2026-05-11'));

describe('accountStats', () => {
  it('counts by plan and status, sign-ups by Sydney day, and quota alerts at 75, 90 and 100%', async () => {
    const full = await account(t, 'starter', { billingDay: 20, used: 5_000, period: PERIOD });
    const ninety = await account(t, 'professional', { billingDay: 20, used: 45_000, period: PERIOD });
    const eighty = await account(t, 'professional', { billingDay: 20, used: 40_000, period: PERIOD });
    await account(t, 'professional', { billingDay: 20, used: 49_000, period: '2026-03-20' }); // last period's count: none this one
    const free = await account(t, 'free', { used: 240 }); // 80% of Free's one-time 300
    const suspended = await account(t, 'business', { billingDay: 20, used: 500_000, period: PERIOD });
    await t.operator(graphql('mutation($e: EmailAddress!) { setAccountStatus(email: $e, status: suspended) { id } }'), { e: suspended.email });

    const query = (percent: number) =>
      `alerts${percent}: quotaAlerts(atLeastPercent: ${percent}) { edges { node { email plan used quota percent periodStart } } }`;
    const result = await t.operatorText(`{ accountStats {
      byPlanAndStatus { plan status accounts }
      createdByDay(from: "2026-05-01", to: "2026-05-31") { day accounts }
      ${query(75)} ${query(90)} ${query(100)}
    } }`);
    expect(result.errors).toBeUndefined();
    const stats = result.data.accountStats;
    expect(stats.byPlanAndStatus).toEqual([
      { plan: 'business', status: 'suspended', accounts: 1 },
      { plan: 'free', status: 'active', accounts: 1 },
      { plan: 'professional', status: 'active', accounts: 3 },
      { plan: 'starter', status: 'active', accounts: 1 },
    ]);
    // signed up on the service's clock: NOW, 12 May in Sydney
    expect(stats.createdByDay).toEqual([{ day: '2026-05-12', accounts: 6 }]);

    const emails = (percent: number) => stats[`alerts${percent}`].edges.map((e: { node: { email: string } }) => e.node.email);
    expect(emails(100)).toEqual([full.email]);
    expect(emails(90)).toEqual([full.email, ninety.email]);
    expect(emails(75)).toEqual([full.email, ninety.email, ...[eighty.email, free.email].sort()]);
    expect(stats.alerts75.edges.map((e: { node: object }) => e.node)).toContainEqual({
      email: free.email,
      plan: 'free',
      used: 240,
      quota: 300,
      percent: 80,
      periodStart: null,
    });
    expect(stats.alerts90.edges[1].node).toEqual({ email: ninety.email, plan: 'professional', used: 45_000, quota: 50_000, percent: 90, periodStart: PERIOD });
  });

  it("counts each account's use in its own billing day's period, a day past the month's end falling back to its last day", async () => {
    // NOW is 2026-05-12 03:00 UTC: billing day 12 has begun a period today, 13 has not (April's
    // runs on), and 31 falls back to 30 April
    const today = await account(t, 'starter', { billingDay: 12, used: 5_000, period: '2026-05-12' });
    await account(t, 'starter', { billingDay: 12, used: 5_000, period: '2026-04-12' }); // last period's count
    const tomorrow = await account(t, 'starter', { billingDay: 13, used: 5_000, period: '2026-04-13' });
    const monthEnd = await account(t, 'starter', { billingDay: 31, used: 5_000, period: '2026-04-30' });
    await account(t, 'starter', { billingDay: 31, used: 5_000, period: '2026-03-31' }); // last period's count
    const result = await t.operator(graphql('{ accountStats { quotaAlerts(atLeastPercent: 100) { edges { node { email periodStart } } } } }'));
    expect(result.errors).toBeUndefined();
    const alerts = result.data!.accountStats.quotaAlerts.edges.map((e) => e.node);
    for (const [{ email }, periodStart] of [
      [today, '2026-05-12'],
      [tomorrow, '2026-04-13'],
      [monthEnd, '2026-04-30'],
    ] as const) {
      expect(alerts).toContainEqual({ email, periodStart });
    }
    expect(alerts.filter((a) => a.email.startsWith('limits-starter'))).toHaveLength(4); // with the first test's full Starter account
  });

  it('refuses a share outside 1–100', async () => {
    const result = await t.operator(graphql('{ accountStats { quotaAlerts(atLeastPercent: 0) { edges { cursor } } } }'));
    expect(result.errors?.[0]).toMatchObject({ message: 'atLeastPercent must be between 1 and 100', extensions: { code: 'bad_request' } });
  });
});
