// Where an API key's account stands this period (GET /usage, the MCP tool get_usage; D46 in
// docs/decisions.md): the plan, the period, the quota's limit, use and what is left, exactly as the
// X-RateLimit-* headers of the key's requests say it, the key's cap and use, and the counted
// requests of each endpoint. Never counted itself.
import { countedRequests, type CountedRequests } from '../db/counted-usage.js';
import type { Account, ApiKey } from '../db/database.js';
import { billingPeriod } from '../domain/billing.js';
import { PLAN_LIMITS } from '../domain/plans.js';
import { InvalidApiKeyError } from '../errors.js';
import { PlanEnum } from './account.js';
import { quotaOf } from './account-quota.js';
import { usagePeriods } from './account-usage.js';
import { builder } from './builder.js';
import { capUsedOf } from './key-restrictions.js';
import { apiKeyViewerOf } from './viewer-scopes.js';

interface KeyUsage {
  account: Account;
  key: ApiKey;
  periodStart: Date;
  periodEnd: Date | null;
  limit: number;
  used: number;
  /** what a capped key has used of its cap this period; null without a cap */
  capUsed: number | null;
  counted: CountedRequests[];
}

const CountedRequestsRef = builder.objectRef<CountedRequests>('CountedRequests').implement({
  description: "An endpoint's requests the quota counted this period (2xx and 304), from the usage records (written every few seconds)",
  fields: (t) => ({
    endpoint: t.exposeString('endpoint', { description: 'The REST route’s operation name (Latest, Convert, …), or mcp:<tool>' }),
    requests: t.exposeInt('requests', { description: "The account's, all its keys together" }),
    keyRequests: t.exposeInt('keyRequests', { description: "This key's" }),
  }),
});

const KeyUsageRef = builder.objectRef<KeyUsage>('KeyUsage').implement({
  description: "Where the key's account stands this quota period, as the X-RateLimit-* headers of its requests say",
  fields: (t) => ({
    plan: t.field({ type: PlanEnum, resolve: (u) => u.account.plan }),
    periodStart: t.expose('periodStart', { type: 'DateTime', description: 'When the period began (on Free: when the account was made)' }),
    periodEnd: t.expose('periodEnd', {
      type: 'DateTime',
      nullable: true,
      description: 'When the count resets (X-RateLimit-Reset); null on Free, which never resets',
    }),
    limit: t.exposeInt('limit', { description: 'X-RateLimit-Limit-Monthly' }),
    used: t.exposeInt('used', { description: "The account's units this period" }),
    remaining: t.int({
      description: "X-RateLimit-Remaining-Monthly: what is left of the account's quota, or of the key's cap when that is less",
      resolve: (u) => {
        const left = Math.max(0, u.limit - u.used);
        return u.capUsed === null || u.key.monthly_cap === null ? left : Math.min(left, Math.max(0, u.key.monthly_cap - u.capUsed));
      },
    }),
    keyPrefix: t.string({ resolve: (u) => u.key.prefix }),
    monthlyCap: t.int({ nullable: true, resolve: (u) => u.key.monthly_cap }),
    capUsed: t.exposeInt('capUsed', { nullable: true, description: "A capped key's units this period, as its cap counts them; null without a cap" }),
    counted: t.field({ type: [CountedRequestsRef], resolve: (u) => u.counted }),
  }),
});

builder.queryFields((t) => ({
  keyUsage: t.field({
    type: KeyUsageRef,
    description: "The asking key's account's quota this period, the key's cap and use, and the counted requests of each endpoint (D46). Never counted.",
    authScopes: { apiKey: true },
    resolve: async (_root, _args, ctx) => {
      const viewer = apiKeyViewerOf(ctx);
      const { db } = ctx.services;
      const now = ctx.services.clock();
      const [account, key] = await Promise.all([ctx.loaders.account.load(viewer.accountId), ctx.loaders.apiKey.load(viewer.keyId)]);
      if (!account || !key) throw new InvalidApiKeyError('Invalid API key: its account no longer exists');
      const { limit, used, resetsAt } = quotaOf(account, now);
      const periodStart = PLAN_LIMITS[account.plan].resets ? new Date(`${billingPeriod(account.billing_day, now).start}T00:00:00Z`) : account.created_at;
      const { current } = usagePeriods(account, now);
      return {
        account,
        key,
        periodStart,
        periodEnd: resetsAt,
        limit,
        used,
        capUsed: capUsedOf(key, account, now),
        counted: await countedRequests(db, account.id, key.id, current.from, current.to),
      };
    },
  }),
}));
