// What an account's plan allows (SPEC 8's table row) and how much of this period's quota is used:
// the numbers the X-RateLimit-* headers of its keyed requests carry.
import type { Account } from '../db/database.js';
import { billingPeriod } from '../domain/billing.js';
import { PLAN_LIMITS, type PlanLimits } from '../domain/plans.js';
import { AccountRef } from './account.js';
import { builder } from './builder.js';

const PlanLimitsRef = builder.objectRef<PlanLimits>('PlanLimits').implement({
  fields: (t) => ({
    name: t.exposeString('name'),
    monthlyRequests: t.exposeInt('monthlyRequests', { description: 'Requests a billing month; on Free a one-time allowance' }),
    resets: t.exposeBoolean('resets', { description: "Whether the allowance starts again each billing month (Free's never does)" }),
    apiKeys: t.exposeInt('apiKeys'),
    historyDays: t.int({
      nullable: true,
      description: 'How many days back dated requests reach; null when none or the full history',
      resolve: (p) => (typeof p.historyDays === 'number' ? p.historyDays : null),
    }),
    fullHistory: t.boolean({ description: 'Dated requests reach the whole history (2018 on)', resolve: (p) => p.historyDays === 'full' }),
    timeSeriesDays: t.exposeInt('timeSeriesDays', { nullable: true, description: 'Longest time series in days; null without access' }),
    webhookSubscriptions: t.exposeInt('webhookSubscriptions'),
  }),
});

interface QuotaState {
  limit: number;
  used: number;
  resetsAt: Date | null;
}

const AccountQuotaRef = builder.objectRef<QuotaState>('AccountQuota').implement({
  fields: (t) => ({
    limit: t.exposeInt('limit'),
    used: t.exposeInt('used'),
    remaining: t.int({ resolve: (q) => Math.max(0, q.limit - q.used) }),
    resetsAt: t.expose('resetsAt', { type: 'DateTime', nullable: true, description: 'When the count starts again; null on Free, which never resets' }),
  }),
});

/** The count as the next keyed request would see it: a stored count of an earlier period is this period's 0. */
export function quotaOf(account: Account, now: Date): QuotaState {
  const plan = PLAN_LIMITS[account.plan];
  if (!plan.resets) return { limit: plan.monthlyRequests, used: account.free_used, resetsAt: null };
  const period = billingPeriod(account.billing_day, now);
  const used = account.quota_period >= period.start ? account.quota_used : 0;
  return { limit: plan.monthlyRequests, used: Math.min(used, plan.monthlyRequests), resetsAt: period.resetsAt };
}

builder.objectFields(AccountRef, (t) => ({
  planLimits: t.field({ type: PlanLimitsRef, resolve: (a) => PLAN_LIMITS[a.plan] }),
  quota: t.field({ type: AccountQuotaRef, resolve: (a, _args, ctx) => quotaOf(a, ctx.services.clock()) }),
}));
