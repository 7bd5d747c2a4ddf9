// The monthly quota counter on the account row (D17). One statement grants up to `wanted` units
// atomically, so the count is exact however many requests and processes race for the last units.
import { sql, type Kysely } from 'kysely';
import type { Database } from './database.js';

/** Units of a period's count leased to one process: counts start+1 … start+granted are its own. */
export interface Lease {
  start: number;
  granted: number;
  /** the period the units were counted in: the one asked for, or a later one already stored */
  period: string;
}

// Leases are a 32nd of what is left, at most 256 units: large while the quota is far from its
// end, one unit at a time over its last 32, so no unit sits unused in one process while another
// process's requests are refused.
const LEASE_SHARE = 32;
const MAX_LEASE = 256;

/**
 * Leases at least `wanted` units (fewer when fewer are left) from the account's count for
 * `period`, in one statement, so the count is exact however many requests and processes race.
 */
export async function leaseUnits(
  db: Kysely<Database>,
  accountId: string,
  period: string,
  limit: number,
  wanted: number,
): Promise<Lease> {
  // FOR UPDATE makes a racing statement wait, then re-read the row it updated. The period only
  // moves forward: a request stamped with an older period (a process whose clock lags, or Free's
  // lifetime period after a downgrade) counts in the stored one, so no count is ever reset early.
  const { rows } = await sql<{ start: number; granted: number; period: string }>`
    with current as (
      select id,
        greatest(quota_period, ${period}::date) as period,
        case when quota_period >= ${period}::date then quota_used else 0 end as used
      from accounts where id = ${accountId} for update
    ), lease as (
      select id, period, used,
        least(greatest(${limit}::int - used, 0), greatest(${wanted}::int, least(${MAX_LEASE}::int, (${limit}::int - used) / ${LEASE_SHARE}::int))) as granted
      from current
    )
    update accounts set quota_used = lease.used + lease.granted, quota_period = lease.period
    from lease where accounts.id = lease.id
    returning lease.used as start, lease.granted, lease.period::text as period`.execute(db);
  const row = rows[0];
  return row ? { start: Number(row.start), granted: Number(row.granted), period: row.period } : { start: limit, granted: 0, period };
}

/** Gives units leased but never handed out back to the period's count. */
export async function returnUnits(db: Kysely<Database>, accountId: string, period: string, units: number): Promise<void> {
  await db
    .updateTable('accounts')
    .set((eb) => ({ quota_used: sql`greatest(${eb.ref('quota_used')} - ${units}, 0)` }))
    .where('id', '=', accountId)
    .where('quota_period', '=', period)
    .execute();
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
export async function countInWindow(
  db: Kysely<Database>,
  client: string,
  now: Date,
  windowMs: number,
  limit: number,
): Promise<WindowCount> {
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
