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
  /** the period whose count took the units ('YYYY-MM-DD'), null for Free's one-time count */
  countedIn: string | null;
  /** the transaction that took them (pg_current_xact_id), by which the database can say later whether it committed */
  transaction: string;
}

/**
 * Grants up to `wanted` units (fewer when fewer are left) of the account's count, in one
 * statement, so the count is exact however many requests and processes race. Null when the
 * account is gone. `sentAs` is what goes with the statement in its round trip: nothing (it commits
 * by itself, or with the transaction it runs in), or the start of a transaction of its own on a
 * connection the caller holds and commits later, after first committing the one open there.
 */
export async function grantUnits(
  db: Kysely<Database>,
  accountId: string,
  count: QuotaCount,
  limit: number,
  wanted: number,
  sentAs: 'statement' | 'begin; statement' | 'commit; begin; statement' = 'statement',
): Promise<Grant | null> {
  // grant_units (migrations 0011–0013) locks the account's row, so a racing grant waits, then
  // reads the count it updated. The period only moves forward: a request stamped with an older
  // period (a process whose clock lags) counts in the stored one, so no count is ever reset early.
  // The values are written into the statement (quoted and escaped by Kysely; all are the service's
  // own: an account id from the database, a date, integers) because a statement without
  // parameters costs PGlite half the work (src/db/connect.ts), and this is the statement of every
  // keyed request. Without parameters it also goes as one simple query, which may hold two statements.
  const grant = sql<{ start: number; granted: number; counted_in: string | null; transaction: string }>`
    ${sql.raw(sentAs.replace('statement', ''))} select start, granted, counted_in, pg_current_xact_id()::text as transaction
    from grant_units(${sql.lit(accountId)}::uuid, ${sql.lit(count.period)}::date, ${sql.lit(limit)}::int, ${sql.lit(wanted)}::int)`;
  const { rows } = await grant.execute(db);
  const row = rows[0];
  return row ? { start: Number(row.start), granted: Number(row.granted), countedIn: row.counted_in, transaction: row.transaction } : null;
}

/** What the database says of a grant whose commit went unanswered. */
export type UnansweredGrantOutcome =
  /** it committed, and its units are given back now or were before */
  | 'refunded'
  /** it never committed: nothing was taken */
  | 'not committed'
  /** it is still running (its server was frozen): ask again later */
  | 'in progress';

/**
 * Gives back the units of `grant` if its transaction committed, at most once however often it is
 * asked (the refund is recorded under the grant's transaction in the same statement), so a refund
 * whose own answer is lost can simply be asked again. A count that has moved to a newer period
 * since is left alone: the units were taken from a period that is over.
 */
export async function refundIfCommitted(db: Kysely<Database>, accountId: string, grant: Grant): Promise<UnansweredGrantOutcome> {
  const { rows } = await sql<{ status: string | null }>`
    with grant_status as (select pg_xact_status(${grant.transaction}::xid8) as status),
    recorded as (
      insert into quota_refunds (grant_transaction, account_id, period, units)
      select ${grant.transaction}::bigint, a.id, ${grant.countedIn}::date, ${grant.granted}::int
      from grant_status, accounts a
      where grant_status.status = 'committed' and a.id = ${accountId}::uuid
      on conflict (grant_transaction) do nothing
      returning account_id, period, units
    ),
    refunded as (
      update accounts a set
        free_used = case when r.period is null then greatest(a.free_used - r.units, 0) else a.free_used end,
        quota_used = case when r.period is null then a.quota_used else greatest(a.quota_used - r.units, 0) end
      from recorded r
      where a.id = r.account_id and (r.period is null or a.quota_period = r.period)
      returning a.id
    )
    select status from grant_status`.execute(db);
  const status = rows[0]?.status ?? null;
  if (status === 'committed') return 'refunded';
  if (status === 'in progress') return 'in progress';
  // 'aborted', or null: a transaction too old for the database to remember, long ended
  return 'not committed';
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
