import { sql, type Kysely } from 'kysely';
import type { Database } from '../database.js';

/** Requests without a key (to /convert) over an inclusive range of Sydney dates. */
export async function keylessUsageTotal(db: Kysely<Database>, from: string, to: string): Promise<number> {
  const { rows } = await sql<{ requests: number | null }>`
    SELECT sum(u.requests)::int8 AS requests FROM keyless_usage_daily u WHERE u.day BETWEEN ${from} AND ${to}`.execute(db);
  return Number(rows[0]?.requests ?? 0);
}
