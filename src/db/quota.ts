// The quota counters on the account row (D16, D17, D35 in docs/decisions.md). One statement grants
// up to `wanted` units atomically, so the count is exact however many requests and processes race
// for the last units.
import { sql, type Kysely } from 'kysely';
import type { Database } from './database.js';

/** The count a request of an account draws on. */
export type QuotaCount =
  /** a paid plan's monthly count, for the period starting on this 'YYYY-MM-DD' */
  | { period: string }
  /** Free's one-time allowance (D16, D35) */
  | { period: null };

/** Units granted to `wanted` waiting requests: counts start+1 … start+granted are theirs. */
export interface Grant {
  start: number;
  granted: number;
}

/**
 * Grants up to `wanted` units (fewer when fewer are left) of the account's count, in one
 * statement, so the count is exact however many requests and processes race. With a `deadline`,
 * a statement the database reaches only after it (its client gave up and answered 503 meanwhile)
 * grants nothing and returns null: a unit is counted only for a request still waiting for it.
 */
export async function grantUnits(
  db: Kysely<Database>,
  accountId: string,
  count: QuotaCount,
  limit: number,
  wanted: number,
  deadline: Date | null,
): Promise<Grant | null> {
  // grant_units (migrations 0011, 0012) locks the account's row, so a racing grant waits, then
  // reads the count it updated. The period only moves forward: a request stamped with an older
  // period (a process whose clock lags) counts in the stored one, so no count is ever reset early.
  // The values are written into the statement (quoted and escaped by Kysely; all are the service's
  // own: an account id from the database, a date, integers, an instant) because a statement
  // without parameters costs PGlite half the work (src/db/connect.ts), and this is the statement
  // of every keyed request.
  const grant = sql<{ start: number; granted: number }>`
    select start, granted from grant_units(${sql.lit(accountId)}::uuid, ${sql.lit(count.period)}::date, ${sql.lit(limit)}::int, ${sql.lit(wanted)}::int, ${sql.lit(deadline)}::timestamptz)`;
  const { rows } = await grant.execute(db);
  const row = rows[0];
  return row ? { start: Number(row.start), granted: Number(row.granted) } : null;
}

export interface WindowCount {
  windowStart: Date;
  /** requests counted in the window, this one included; never past limit + 1 */
  requests: number;
}

/**
 * Counts one request of `client` in its fixed window (D19): a window opens at the first request
 * after the previous one ended and lasts `windowMs`. One upsert, so racing requests and processes
 * see one count.
 */
export async function countInWindow(db: Kysely<Database>, client: string, now: Date, windowMs: number, limit: number): Promise<WindowCount> {
  const windowOpenSince = new Date(now.getTime() - windowMs);
  const { rows } = await sql<{ window_start: Date; requests: number }>`
    insert into free_convert_windows as w (client, window_start, requests) values (${client}, ${now}, 1)
    on conflict (client) do update set
      window_start = case when w.window_start <= ${windowOpenSince} then ${now} else w.window_start end,
      requests = case when w.window_start <= ${windowOpenSince} then 1 else least(w.requests + 1, ${limit + 1}::int) end
    returning window_start, requests`.execute(db);
  const row = rows[0]!;
  return { windowStart: new Date(row.window_start), requests: Number(row.requests) };
}
