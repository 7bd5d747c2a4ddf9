import { sql, type Kysely } from 'kysely';
import type { Database } from '../database.js';

/** Requests with a key over an inclusive range of Sydney dates. */
export async function usageTotal(db: Kysely<Database>, from: string, to: string): Promise<number> {
  const { rows } = await sql<{ requests: number | null }>`
    SELECT sum(u.requests)::int8 AS requests FROM usage_totals_daily u WHERE u.day BETWEEN ${from} AND ${to}`.execute(db);
  return Number(rows[0]?.requests ?? 0);
}
