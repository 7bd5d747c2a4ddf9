// The quota counters on the account row (D16, D17, D35, D36 in docs/decisions.md). One statement
// grants units to the waiting requests of any number of accounts atomically, so each count is exact
// however many requests and processes race for the last units; docs/architecture.md ("The quota")
// follows a grant from the limits step to the row.
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
  /** the transaction that took them (pg_current_xact_id), by which the database can say whether it is still open */
  transaction: string;
  /**
   * for a grant that commits apart from its statement, the mark its transaction wrote, by which
   * the database can say later whether it committed; null for a grant that committed with it
   */
  mark: string | null;
  /** the capped key's count before the grant (it took the same units); null for an ask without a cap */
  keyStart: number | null;
  /** the capped key whose count took the units too */
  keyId: string | null;
}

/**
 * What one account's waiting requests ask of a grant: `wanted` units of its count, up to `limit`;
 * for requests of a capped key, also at most what is left of the key's `cap`.
 */
export interface GrantAsk {
  accountId: string;
  count: QuotaCount;
  limit: number;
  wanted: number;
  /** absent or null: no cap */
  key?: { id: string; cap: number } | null;
}

/**
 * Grants each ask up to `wanted` units (fewer when fewer are left) of its account's count, and of
 * its capped key's, every ask in one call of `grant_units` (the baseline migration), so the count is
 * exact however many requests and processes race, and the requests of many accounts share one
 * statement. With a `mark`, the grant writes it in the transaction it runs in, which then commits
 * apart from it. One grant per ask, in the asks' order; null for an account that is gone. The asks
 * name distinct accounts.
 */
export async function grantUnits(db: Kysely<Database>, asks: readonly GrantAsk[], mark: string | null = null): Promise<(Grant | null)[]> {
  const { rows } = await sql<{
    ask_position: number;
    start: number;
    granted: number;
    counted_in: string | null;
    key_start: number | null;
    transaction: string;
  }>`
    select g.ask_position, g.start, g.granted, g.counted_in, g.key_start, pg_current_xact_id()::text as transaction
    from grant_units(${mark}::uuid, ${asks.map((ask) => ask.accountId)}::uuid[], ${asks.map((ask) => ask.count.period)}::date[],
                     ${asks.map((ask) => ask.limit)}::int[], ${asks.map((ask) => ask.wanted)}::int[],
                     ${asks.map((ask) => ask.key?.id ?? null)}::uuid[], ${asks.map((ask) => ask.key?.cap ?? null)}::int[]) g`.execute(db);
  // An account that is gone has no row.
  const grants: (Grant | null)[] = new Array<Grant | null>(asks.length).fill(null);
  for (const row of rows) {
    const position = Number(row.ask_position) - 1;
    const keyStart = row.key_start === null ? null : Number(row.key_start);
    grants[position] = {
      start: Number(row.start),
      granted: Number(row.granted),
      countedIn: row.counted_in,
      transaction: row.transaction,
      mark,
      keyStart,
      keyId: keyStart === null ? null : asks[position]!.key!.id,
    };
  }
  return grants;
}

/** What the database says of a grant whose commit went unanswered. */
export type UnansweredGrantOutcome =
  /** it committed, and its units are given back now or were before */
  | 'refunded'
  /** it never committed: nothing was taken */
  | 'not committed'
  /** it is still running (its server was frozen): ask again later */
  | 'in progress';

/** A grant that committed apart from its statement, and so wrote its mark. */
export type MarkedGrant = Grant & { mark: string };

/**
 * Gives back the account's units of `grant` (and its capped key's) if its transaction committed, at
 * most once however often it is asked (the refund is recorded under the grant's transaction and
 * the account in the same statement), so a refund whose own answer is lost can simply be asked
 * again. Whether it committed is read from its mark, once the transaction is no longer open: its
 * id is not enough, since a server restarting after a crash may give an id that never reached its
 * log to a new transaction. A count that has moved to a newer period since is
 * left alone: the units were taken from a period that is over.
 */
export async function refundIfCommitted(db: Kysely<Database>, accountId: string, grant: MarkedGrant): Promise<UnansweredGrantOutcome> {
  // Asked first, in a statement of its own: the next statement's snapshot, taken after the
  // transaction ended, then sees its mark if it committed.
  const { rows: open } = await sql<{ status: string | null }>`select pg_xact_status(${grant.transaction}::xid8) as status`.execute(db);
  if (open[0]?.status === 'in progress') return 'in progress';
  const { rows } = await sql<{ committed: boolean }>`
    with committed as (select exists (select from quota_grant_marks where mark = ${grant.mark}::uuid) as committed),
    recorded as (
      insert into quota_refunds (grant_transaction, account_id, period, units)
      select ${grant.transaction}::bigint, a.id, ${grant.countedIn}::date, ${grant.granted}::int
      from committed, accounts a
      where committed.committed and a.id = ${accountId}::uuid
      on conflict (grant_transaction, account_id) do nothing
      returning account_id, period, units
    ),
    refunded as (
      update accounts a set
        free_used = case when r.period is null then greatest(a.free_used - r.units, 0) else a.free_used end,
        quota_used = case when r.period is null then a.quota_used else greatest(a.quota_used - r.units, 0) end
      from recorded r
      where a.id = r.account_id and (r.period is null or a.quota_period = r.period)
      returning a.id
    ),
    key_refunded as (
      update api_keys k set
        cap_free_used = case when r.period is null then greatest(k.cap_free_used - r.units, 0) else k.cap_free_used end,
        cap_used = case when r.period is null then k.cap_used else greatest(k.cap_used - r.units, 0) end
      from recorded r
      where k.id = ${grant.keyId}::uuid and (r.period is null or k.cap_period = r.period)
      returning k.id
    )
    select committed from committed`.execute(db);
  return rows[0]?.committed ? 'refunded' : 'not committed';
}

/** Deletes up to `limit` marks of grants made before `before`; resolves with how many went. */
export async function pruneGrantMarks(db: Kysely<Database>, before: Date, limit: number): Promise<number> {
  const { numDeletedRows } = await db
    .deleteFrom('quota_grant_marks')
    .where('mark', 'in', (eb) => eb.selectFrom('quota_grant_marks').select('mark').where('granted_at', '<', before).limit(limit))
    .executeTakeFirst();
  return Number(numDeletedRows);
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
