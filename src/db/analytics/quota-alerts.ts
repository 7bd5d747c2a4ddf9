import { sql, type Kysely } from 'kysely';
import { billingPeriod } from '../../domain/billing.js';
import { PLAN_LIMITS, PLANS, type Plan } from '../../domain/plans.js';
import type { Database } from '../database.js';

export interface QuotaUse {
  email: string;
  plan: Plan;
  used: number;
  quota: number;
  periodStart: string | null;
}

/**
 * The active accounts at or above `percent` of their quota, chosen in the database so that only
 * they are read: a paid plan's count when it is the current period's (a count kept for an earlier
 * period means nothing has been taken in this one yet), Free's allowance always. Each billing day's
 * current period is billingPeriod's, given as a list, so the rule stays in one place. Unordered.
 */
export async function quotaAlerts(db: Kysely<Database>, now: Date, percent: number): Promise<QuotaUse[]> {
  const plans = PLANS.map((plan) => sql`(${plan}::text, ${PLAN_LIMITS[plan].monthlyRequests}::int8, ${PLAN_LIMITS[plan].resets}::boolean)`);
  const periods = Array.from({ length: 31 }, (_, i) => sql`(${i + 1}::int, ${billingPeriod(i + 1, now).start}::date)`);
  const { rows } = await sql<QuotaUse>`
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
    SELECT email, plan, used, quota, "periodStart" FROM uses WHERE 100 * used::int8 >= ${percent} * quota`.execute(db);
  return rows;
}
