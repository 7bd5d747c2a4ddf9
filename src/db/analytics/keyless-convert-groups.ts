import { sql, type Kysely } from 'kysely';
import type { Database } from '../database.js';
import { OUTCOME_SQL, type Outcome } from './usage-outcome.js';

export interface KeylessConvertRow {
  day: string;
  outcome: Outcome;
  requests: number;
}

/** A page of the keyless /convert requests of an inclusive range, per Sydney day and outcome, oldest first. */
export async function keylessConvertGroups(db: Kysely<Database>, from: string, to: string, offset: number, limit: number): Promise<KeylessConvertRow[]> {
  const { rows } = await sql<KeylessConvertRow>`
    SELECT u.day, ${OUTCOME_SQL} AS outcome, sum(u.requests)::int8 AS requests
    FROM keyless_usage_daily u
    WHERE u.endpoint = 'Convert' AND u.day BETWEEN ${from} AND ${to}
    GROUP BY u.day, 2 ORDER BY u.day, 2
    LIMIT ${limit} OFFSET ${offset}`.execute(db);
  return rows;
}
