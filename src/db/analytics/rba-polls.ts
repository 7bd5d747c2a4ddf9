import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database, RbaPollsTable } from '../database.js';

/** A page of the scheduler's polls on an inclusive range of Sydney dates, newest first, of one outcome or all. */
export async function rbaPolls(
  db: Kysely<Database>,
  { from, to, outcome }: { from: string; to: string; outcome?: RbaPollsTable['outcome'] | null },
  offset: number,
  limit: number,
): Promise<Selectable<RbaPollsTable>[]> {
  const { rows } = await sql<Selectable<RbaPollsTable>>`
    SELECT id, polled_at, duration_ms, reason, expected_date, outcome, sources, days_stored, days_updated, newest_date, error
    FROM rba_polls
    WHERE (polled_at AT TIME ZONE 'Australia/Sydney')::date BETWEEN ${from} AND ${to}
      ${outcome ? sql`AND outcome = ${outcome}` : sql``}
    ORDER BY polled_at DESC, id DESC
    LIMIT ${limit} OFFSET ${offset}`.execute(db);
  return rows;
}
