import { sql, type Kysely } from 'kysely';
import type { Plan } from '../../domain/plans.js';
import type { AccountStatus, Database } from '../database.js';

export interface PlanStatusCount {
  plan: Plan;
  status: AccountStatus;
  accounts: number;
}

/** How many accounts each plan has in each status. */
export async function accountsByPlanAndStatus(db: Kysely<Database>): Promise<PlanStatusCount[]> {
  const { rows } = await sql<PlanStatusCount>`
    SELECT plan, status, count(*)::int AS accounts FROM accounts GROUP BY plan, status ORDER BY plan, status`.execute(db);
  return rows;
}
