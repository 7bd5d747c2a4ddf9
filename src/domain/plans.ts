// The five plans of docs/api.md §8, in one place.

/** Cheapest first: the order in which an upgrade is suggested. */
export const PLANS = ['free', 'starter', 'professional', 'business', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export interface PlanLimits {
  name: string;
  /** requests per billing month; for Free a one-time allowance that never resets (D16 in docs/decisions.md) */
  monthlyRequests: number;
  resets: boolean;
  apiKeys: number;
  /** how far back dated requests may reach: null none, a number of days, or 'full' (2018 on) */
  historyDays: number | 'full' | null;
  /** longest /timeseries range in days (end - start), null for no access */
  timeSeriesDays: number | null;
  webhookSubscriptions: number;
  /** rate alerts the account may hold; on a plan without webhooks they e-mail only */
  alerts: number;
  /** GET /export: the whole history in one answer (D45 in docs/decisions.md) */
  bulkExport: boolean;
}

export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  free: {
    name: 'Free',
    monthlyRequests: 300,
    resets: false,
    apiKeys: 1,
    historyDays: null,
    timeSeriesDays: null,
    webhookSubscriptions: 0,
    alerts: 0,
    bulkExport: false,
  },
  starter: {
    name: 'Starter',
    monthlyRequests: 5_000,
    resets: true,
    apiKeys: 1,
    historyDays: 30,
    timeSeriesDays: 7,
    webhookSubscriptions: 0,
    alerts: 3,
    bulkExport: false,
  },
  professional: {
    name: 'Professional',
    monthlyRequests: 50_000,
    resets: true,
    apiKeys: 5,
    historyDays: 'full',
    timeSeriesDays: 90,
    webhookSubscriptions: 3,
    alerts: 20,
    bulkExport: false,
  },
  business: {
    name: 'Business',
    monthlyRequests: 500_000,
    resets: true,
    apiKeys: 10,
    historyDays: 'full',
    timeSeriesDays: 365,
    webhookSubscriptions: 10,
    alerts: 100,
    bulkExport: true,
  },
  enterprise: {
    name: 'Enterprise',
    monthlyRequests: 5_000_000,
    resets: true,
    apiKeys: 20,
    historyDays: 'full',
    timeSeriesDays: 365,
    webhookSubscriptions: 50,
    alerts: 500,
    bulkExport: true,
  },
};

/** The monthly price in Australian dollars of SPEC 8's table; null where it is agreed case by case (Enterprise). */
export const PLAN_PRICES_AUD: Record<Plan, number | null> = { free: 0, starter: 29, professional: 79, business: 299, enterprise: null };

/** Free and Starter hold one key: a new one replaces the old (docs/api.md §3). */
export function replacesKeyOnCreate(plan: Plan): boolean {
  return PLAN_LIMITS[plan].apiKeys === 1;
}

/** Plans whose accounts may subscribe to webhooks and receive deliveries. */
export const PLANS_WITH_WEBHOOKS: readonly Plan[] = (Object.keys(PLAN_LIMITS) as Plan[]).filter((plan) => PLAN_LIMITS[plan].webhookSubscriptions > 0);

/** Plans whose accounts may hold rate alerts. */
export const PLANS_WITH_ALERTS: readonly Plan[] = (Object.keys(PLAN_LIMITS) as Plan[]).filter((plan) => PLAN_LIMITS[plan].alerts > 0);
