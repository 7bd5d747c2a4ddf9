import { sql, type Kysely } from 'kysely';
import type { AlertCondition, Database } from '../database.js';

export interface AlertFiringCount {
  date: string;
  condition: AlertCondition;
  firings: number;
}

/**
 * Firings per rate day and condition on an inclusive range of rate days, oldest first, read through
 * the firings' rate-day index (the firings of deleted alerts went with them).
 */
export async function alertFiringCounts(db: Kysely<Database>, from: string, to: string): Promise<AlertFiringCount[]> {
  const { rows } = await sql<AlertFiringCount>`
    SELECT f.rate_date AS date, a.condition, count(*)::int AS firings
    FROM alert_firings f JOIN alerts a ON a.id = f.alert_id
    WHERE f.rate_date BETWEEN ${from} AND ${to}
    GROUP BY f.rate_date, a.condition
    ORDER BY f.rate_date, a.condition`.execute(db);
  return rows;
}
