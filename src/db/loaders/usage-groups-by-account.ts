import { sql, type Kysely } from 'kysely';
import type { Database } from '../database.js';
import { rangeRows, type AccountDays } from './account-days.js';

/** A group of one account's requests: by endpoint, by key or by status, the other fields null. */
export interface AccountUsageGroup {
  endpoint: string | null;
  key_id: string | null;
  key_prefix: string | null;
  key_last_four: string | null;
  status: number | null;
  requests: number;
}

/** Each range's requests (its account's, on its days), summed by endpoint, by key and by status; `range` is its index among those asked for. */
export async function usageGroupsByAccount(db: Kysely<Database>, ranges: readonly AccountDays[]): Promise<(AccountUsageGroup & { range: number })[]> {
  const { rows } = await sql<AccountUsageGroup & { range: number }>`
    select (r.n - 1)::int as range, u.endpoint, u.key_id, k.prefix as key_prefix, k.last_four as key_last_four, u.status,
      sum(u.requests)::int8 as requests
    from ${rangeRows(ranges)}
    join usage_daily u on u.account_id = r.account_id and u.day between r.from_day and r.to_day
    join api_keys k on k.id = u.key_id
    group by grouping sets ((r.n, u.endpoint), (r.n, u.key_id, k.prefix, k.last_four), (r.n, u.status))`.execute(db);
  return rows;
}
