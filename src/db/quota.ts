// The monthly quota counter on the account row (D17). One statement grants up to `wanted` units
// atomically, so the count is exact however many requests and processes race for the last units.
import { sql, type Kysely } from 'kysely';
import type { Database } from './database.js';

export interface Grant {
  /** units granted, 0..wanted */
  granted: number;
  /** the period's count after the grant */
  used: number;
}

export async function grantUnits(
  db: Kysely<Database>,
  accountId: string,
  period: string,
  limit: number,
  wanted: number,
): Promise<Grant> {
  // FOR UPDATE makes a racing statement wait, then re-read the row it updated. The period only
  // moves forward: a request stamped with an older period (a process whose clock lags, or Free's
  // lifetime period after a downgrade) counts in the stored one, so no count is ever reset early.
  const { rows } = await sql<{ granted: number; used: number }>`
    with current as (
      select id,
        greatest(quota_period, ${period}::date) as period,
        case when quota_period >= ${period}::date then quota_used else 0 end as used
      from accounts where id = ${accountId} for update
    ), grant_ as (
      select id, period, used, least(${wanted}::int, greatest(${limit}::int - used, 0)) as granted from current
    )
    update accounts set quota_used = grant_.used + grant_.granted, quota_period = grant_.period
    from grant_ where accounts.id = grant_.id
    returning grant_.granted, accounts.quota_used as used`.execute(db);
  const row = rows[0];
  return row ? { granted: Number(row.granted), used: Number(row.used) } : { granted: 0, used: limit };
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
