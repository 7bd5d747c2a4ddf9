// `accountStats`: accounts by plan and status, accounts created per Sydney day, and the accounts
// at or above a share of their quota in the current period.
import { resolveArrayConnection } from '@pothos/plugin-relay';
import { sql } from 'kysely';
import type { AccountStatus } from '../db/database.js';
import type { Plan } from '../domain/plans.js';
import { billingPeriod } from '../domain/billing.js';
import { PLAN_LIMITS, PLANS } from '../domain/plans.js';
import { BadRequestError } from '../errors.js';
import { PlanEnum } from './account.js';
import { analyticsRead, checkPage, checkRange, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './analytics-support.js';
import { builder } from './builder.js';

interface PlanStatusCount {
  plan: Plan;
  status: AccountStatus;
  accounts: number;
}

interface QuotaUse {
  email: string;
  plan: Plan;
  used: number;
  quota: number;
  periodStart: string | null;
}

const PlanStatusCountRef = builder.objectRef<PlanStatusCount>('AccountsByPlanAndStatus').implement({
  fields: (t) => ({
    plan: t.field({ type: PlanEnum, resolve: (c) => c.plan }),
    status: t.string({ resolve: (c) => c.status }),
    accounts: t.int({ resolve: (c) => c.accounts }),
  }),
});

const CreatedDayRef = builder.objectRef<{ day: string; accounts: number }>('AccountsCreatedOnDay').implement({
  fields: (t) => ({
    day: t.field({ type: 'LocalDate', resolve: (d) => d.day }),
    accounts: t.int({ resolve: (d) => d.accounts }),
  }),
});

const QuotaUseRef = builder.objectRef<QuotaUse>('AccountQuotaUse').implement({
  fields: (t) => ({
    email: t.string({ resolve: (q) => q.email }),
    plan: t.field({ type: PlanEnum, resolve: (q) => q.plan }),
    used: t.int({ description: 'units taken this period (with any a running process holds but has not used yet)', resolve: (q) => q.used }),
    quota: t.int({ resolve: (q) => q.quota }),
    percent: t.float({ resolve: (q) => (100 * q.used) / q.quota }),
    periodStart: t.field({ type: 'LocalDate', nullable: true, description: 'null on Free, whose allowance never resets', resolve: (q) => q.periodStart }),
  }),
});

/**
 * The active accounts at or above `percent` of their quota, chosen in the database so that only
 * they are read: a paid plan's count when it is the current period's (a count kept for an earlier
 * period means nothing has been taken in this one yet), Free's allowance always. Each billing day's
 * current period is billingPeriod's, given as a list, so the rule stays in one place.
 */
function quotaAlertsQuery(now: Date, percent: number) {
  const plans = PLANS.map((plan) => sql`(${plan}::text, ${PLAN_LIMITS[plan].monthlyRequests}::int8, ${PLAN_LIMITS[plan].resets}::boolean)`);
  const periods = Array.from({ length: 31 }, (_, i) => sql`(${i + 1}::int, ${billingPeriod(i + 1, now).start}::date)`);
  return sql<QuotaUse>`
    WITH plans (plan, quota, resets) AS (VALUES ${sql.join(plans)}),
    periods (billing_day, start) AS (VALUES ${sql.join(periods)}),
    uses AS (
      SELECT a.email, a.plan, p.quota,
        CASE WHEN NOT p.resets THEN a.free_used WHEN a.quota_period = s.start THEN a.quota_used ELSE 0 END AS used,
        CASE WHEN p.resets THEN s.start END AS "periodStart"
      FROM accounts a
      JOIN plans p ON p.plan = a.plan
      JOIN periods s ON s.billing_day = a.billing_day
      WHERE a.status = 'active'
    )
    SELECT email, plan, used, quota, "periodStart" FROM uses WHERE 100 * used::int8 >= ${percent} * quota`;
}

const AccountStats = builder.objectRef<object>('AccountStats').implement({
  authScopes: { operator: true },
  fields: (t) => ({
    byPlanAndStatus: t.field({
      type: [PlanStatusCountRef],
      resolve: (_s, _a, ctx) =>
        analyticsRead(ctx, async (db) => {
          const { rows } = await sql<PlanStatusCount>`
            SELECT plan, status, count(*)::int AS accounts FROM accounts GROUP BY plan, status ORDER BY plan, status`.execute(db);
          return rows;
        }),
    }),
    createdByDay: t.field({
      type: [CreatedDayRef],
      description: 'accounts created per Sydney day of an inclusive range (days with none left out)',
      args: { from: t.arg({ type: 'LocalDate', required: true }), to: t.arg({ type: 'LocalDate', required: true }) },
      resolve: (_s, { from, to }, ctx) => {
        checkRange(from, to);
        return analyticsRead(ctx, async (db) => {
          const { rows } = await sql<{ day: string; accounts: number }>`
            SELECT (created_at AT TIME ZONE 'Australia/Sydney')::date AS day, count(*)::int AS accounts
            FROM accounts
            WHERE (created_at AT TIME ZONE 'Australia/Sydney')::date BETWEEN ${from} AND ${to}
            GROUP BY 1 ORDER BY 1`.execute(db);
          return rows;
        });
      },
    }),
    quotaAlerts: t.connection({
      type: QuotaUseRef,
      description: 'active accounts at or above atLeastPercent of their quota in the current period, the fullest first',
      args: { atLeastPercent: t.arg.int({ required: true, defaultValue: 75 }) },
      resolve: async (_s, args, ctx) => {
        checkPage(args);
        if (args.atLeastPercent < 1 || args.atLeastPercent > 100) throw new BadRequestError('atLeastPercent must be between 1 and 100');
        const alerts = await analyticsRead(ctx, async (db) => (await quotaAlertsQuery(ctx.services.clock(), args.atLeastPercent).execute(db)).rows);
        // ordered here, not in SQL: localeCompare's order of e-mails is not the database collation's
        alerts.sort((a, b) => b.used / b.quota - a.used / a.quota || a.email.localeCompare(b.email));
        return resolveArrayConnection({ args, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE }, alerts);
      },
    }),
  }),
});

builder.queryFields((t) => ({
  accountStats: t.field({
    type: AccountStats,
    description: 'Accounts by plan and status, sign-ups by day, and quota alerts (operator only)',
    authScopes: { operator: true },
    resolve: () => ({}),
  }),
}));
