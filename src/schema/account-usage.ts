// An account's own usage, for the dashboard's Usage page: requests per day over the current quota
// period and the previous one, and the current period's requests by endpoint, key and outcome.
// Read from the per-day counts the REST facade writes in batches (src/rest/usage.ts), whose days
// are Sydney dates; a period's days are the Sydney dates from its first day (D17 in
// docs/decisions.md) to the day before the next period's first. Free has one allowance that never
// resets (D35): its one period runs from the account's first day to today.
import { outcomeOf, type Outcome } from '../db/analytics/usage-outcome.js';
import type { AccountUsageGroup } from '../db/loaders/usage-groups-by-account.js';
import { billingPeriod } from '../domain/billing.js';
import { addDays, daysBetween, sydneyDate } from '../domain/calendar.js';
import { PLAN_LIMITS } from '../domain/plans.js';
import { AccountRef } from './account.js';
import { builder } from './builder.js';
import { UsageOutcome } from './usage-analytics.js';

/** a chart of more days than a month would no longer be read bar by bar: Free's period shows its latest days */
const MAX_CHART_DAYS = 31;

interface PeriodRange {
  from: string;
  /** inclusive; may lie ahead of today for the current period */
  to: string;
}

interface PeriodUsage extends PeriodRange {
  /** the period's last MAX_CHART_DAYS days at most, each with its count (0 when none) */
  days: { day: string; requests: number }[];
  totalRequests: number;
  /** answered with an error (4xx, 5xx): never counted against the quota (D17) */
  refusedRequests: number;
  byEndpoint: { endpoint: string; requests: number }[];
  byKey: { keyId: string; prefix: string; lastFour: string; requests: number }[];
  byOutcome: { outcome: Outcome; requests: number }[];
}

interface AccountUsage {
  current: PeriodUsage;
  previous: PeriodUsage | null;
}

/** The outcomes the quota does not count (D17 counts 2xx and 304 only). */
const isRefusal = (outcome: Outcome) => outcome !== 'SUCCESS' && outcome !== 'NOT_MODIFIED';

/** Adds `requests` to the entry of `key`, made by `make` when it is the first. */
function tally<T extends { requests: number }>(into: Map<string, T>, key: string, requests: number, make: () => T): void {
  const entry = into.get(key) ?? into.set(key, make()).get(key)!;
  entry.requests += requests;
}

const busiestFirst = <T extends { requests: number }>(entries: Map<string, T>) => [...entries.values()].sort((a, b) => b.requests - a.requests);

/**
 * The usage of one period: its days from the account's daily totals (which may span more than
 * it), its groups from those of its own range. Pure.
 */
export function summarisePeriod(daily: readonly { day: string; requests: number }[], groups: readonly AccountUsageGroup[], range: PeriodRange): PeriodUsage {
  const perDay = new Map(daily.filter((d) => d.day >= range.from && d.day <= range.to).map((d) => [d.day, d.requests]));
  const byEndpoint = new Map<string, PeriodUsage['byEndpoint'][number]>();
  const byKey = new Map<string, PeriodUsage['byKey'][number]>();
  const byOutcome = new Map<string, PeriodUsage['byOutcome'][number]>();
  for (const group of groups) {
    const { endpoint, key_id: keyId, status, requests } = group;
    if (endpoint !== null) tally(byEndpoint, endpoint, requests, () => ({ endpoint, requests: 0 }));
    if (keyId !== null) tally(byKey, keyId, requests, () => ({ keyId, prefix: group.key_prefix ?? '', lastFour: group.key_last_four ?? '', requests: 0 }));
    if (status !== null) {
      const outcome = outcomeOf(status);
      tally(byOutcome, outcome, requests, () => ({ outcome, requests: 0 }));
    }
  }
  const span = daysBetween(range.from, range.to) + 1;
  const first = span > MAX_CHART_DAYS ? addDays(range.to, 1 - MAX_CHART_DAYS) : range.from;
  const days = Array.from({ length: Math.min(span, MAX_CHART_DAYS) }, (_, i) => {
    const day = addDays(first, i);
    return { day, requests: perDay.get(day) ?? 0 };
  });
  return {
    ...range,
    days,
    totalRequests: [...perDay.values()].reduce((sum, n) => sum + n, 0),
    refusedRequests: groups.reduce((sum, g) => sum + (g.status !== null && isRefusal(outcomeOf(g.status)) ? g.requests : 0), 0),
    byEndpoint: busiestFirst(byEndpoint),
    byKey: busiestFirst(byKey),
    byOutcome: busiestFirst(byOutcome),
  };
}

/** The current period and the one before it, as Sydney dates; Free has only the one since sign-up. */
export function usagePeriods(
  account: { plan: keyof typeof PLAN_LIMITS; billing_day: number; created_at: Date },
  now: Date,
): { current: PeriodRange; previous: PeriodRange | null } {
  const today = sydneyDate(now);
  if (!PLAN_LIMITS[account.plan].resets) {
    const signedUp = sydneyDate(account.created_at);
    // a sign-up after today: the service's clock set back since, or an account stamped by the
    // database's clock (as every account was before src/db/accounts.ts took the service's)
    return { current: { from: signedUp < today ? signedUp : today, to: today }, previous: null };
  }
  const period = billingPeriod(account.billing_day, now);
  const lastDay = addDays(period.resetsAt.toISOString().slice(0, 10), -1);
  // Sydney is ahead of UTC: in a period's last hours, today in Sydney is already the next period's first date.
  const current = { from: period.start, to: today > lastDay ? today : lastDay };
  const before = billingPeriod(account.billing_day, new Date(Date.parse(period.start) - 1));
  return { current, previous: { from: before.start, to: addDays(period.start, -1) } };
}

const DayCountRef = builder.objectRef<PeriodUsage['days'][number]>('UsageDayCount').implement({
  fields: (t) => ({
    day: t.expose('day', { type: 'LocalDate', description: 'A Sydney date' }),
    requests: t.exposeInt('requests'),
  }),
});

const EndpointCountRef = builder.objectRef<PeriodUsage['byEndpoint'][number]>('UsageEndpointCount').implement({
  fields: (t) => ({
    endpoint: t.exposeString('endpoint', { description: 'The REST route’s operation name (Latest, Convert, …)' }),
    requests: t.exposeInt('requests'),
  }),
});

const KeyCountRef = builder.objectRef<PeriodUsage['byKey'][number]>('UsageKeyCount').implement({
  fields: (t) => ({
    keyId: t.expose('keyId', { type: 'UUID' }),
    prefix: t.exposeString('prefix'),
    lastFour: t.exposeString('lastFour'),
    requests: t.exposeInt('requests'),
  }),
});

const OutcomeCountRef = builder.objectRef<PeriodUsage['byOutcome'][number]>('UsageOutcomeCount').implement({
  fields: (t) => ({
    outcome: t.expose('outcome', { type: UsageOutcome }),
    requests: t.exposeInt('requests'),
  }),
});

const PeriodUsageRef = builder.objectRef<PeriodUsage>('PeriodUsage').implement({
  description: "One quota period's keyed requests, by Sydney date",
  fields: (t) => ({
    from: t.expose('from', { type: 'LocalDate' }),
    to: t.expose('to', { type: 'LocalDate', description: 'The last day, inclusive; the current period’s may be ahead' }),
    totalRequests: t.exposeInt('totalRequests', { description: 'Every answered request, counted against the quota or refused' }),
    refusedRequests: t.exposeInt('refusedRequests', {
      description: 'Requests answered with an error (4xx, 5xx), which the quota does not count; the quota’s own count is Account.quota.used',
    }),
    days: t.field({ type: [DayCountRef], description: `Each day's requests, 0 included; at most the last ${MAX_CHART_DAYS} days`, resolve: (p) => p.days }),
    byEndpoint: t.field({ type: [EndpointCountRef], description: 'Busiest first', resolve: (p) => p.byEndpoint }),
    byKey: t.field({ type: [KeyCountRef], description: 'Busiest first', resolve: (p) => p.byKey }),
    byOutcome: t.field({ type: [OutcomeCountRef], description: 'Busiest first', resolve: (p) => p.byOutcome }),
  }),
});

const AccountUsageRef = builder.objectRef<AccountUsage>('AccountUsage').implement({
  fields: (t) => ({
    current: t.field({ type: PeriodUsageRef, resolve: (u) => u.current }),
    previous: t.field({ type: PeriodUsageRef, nullable: true, description: 'null on Free, whose allowance never resets', resolve: (u) => u.previous }),
  }),
});

builder.objectFields(AccountRef, (t) => ({
  usage: t.field({
    type: AccountUsageRef,
    description: 'Requests made with the account’s keys in its current quota period and the previous one',
    resolve: async (account, _args, ctx) => {
      const { current, previous } = usagePeriods(account, ctx.services.clock());
      const { dailyRequests, usageGroups } = ctx.loaders;
      const accountId = account.id;
      // Summed in the database: a busy account has a row per day, key, endpoint and status.
      const [daily, currentGroups, previousGroups] = await Promise.all([
        dailyRequests.load({ accountId, from: previous?.from ?? current.from, to: current.to }),
        usageGroups.load({ accountId, ...current }),
        previous ? usageGroups.load({ accountId, ...previous }) : [],
      ]);
      return { current: summarisePeriod(daily, currentGroups, current), previous: previous && summarisePeriod(daily, previousGroups, previous) };
    },
  }),
}));
