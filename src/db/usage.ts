import { sql, type Kysely } from 'kysely';
import type { Database, UsageDailyTable } from './database.js';

/** Adds request counts to the daily usage rows. */
export async function addUsage(db: Kysely<Database>, rows: UsageDailyTable[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('usage_daily')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['day', 'account_id', 'key_id', 'endpoint', 'status']).doUpdateSet({
        requests: (eb) => sql`${eb.ref('usage_daily.requests')} + ${eb.ref('excluded.requests')}`,
      }),
    )
    .execute();
}

/** One account's requests per Sydney date over an inclusive range; days without requests are left out. */
export async function accountDailyTotals(db: Kysely<Database>, accountId: string, from: string, to: string): Promise<{ day: string; requests: number }[]> {
  const { rows } = await sql<{ day: string; requests: number }>`
    select u.day, sum(u.requests)::int8 as requests
    from usage_daily u
    where u.account_id = ${accountId} and u.day between ${from} and ${to}
    group by u.day
    order by u.day`.execute(db);
  return rows;
}

/** A group of one account's requests: by endpoint, by key or by status, the other fields null. */
export interface AccountUsageGroup {
  endpoint: string | null;
  key_id: string | null;
  key_prefix: string | null;
  key_last_four: string | null;
  status: number | null;
  requests: number;
}

/** One account's requests over an inclusive range of Sydney dates, summed by endpoint, by key and by status. */
export async function accountUsageGroups(db: Kysely<Database>, accountId: string, from: string, to: string): Promise<AccountUsageGroup[]> {
  const { rows } = await sql<AccountUsageGroup>`
    select u.endpoint, u.key_id, k.prefix as key_prefix, k.last_four as key_last_four, u.status, sum(u.requests)::int8 as requests
    from usage_daily u
    join api_keys k on k.id = u.key_id
    where u.account_id = ${accountId} and u.day between ${from} and ${to}
    group by grouping sets ((u.endpoint), (u.key_id, k.prefix, k.last_four), (u.status))`.execute(db);
  return rows;
}
