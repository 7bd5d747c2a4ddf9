import { sql, type Kysely } from 'kysely';
import type { Database } from '../database.js';
import { rangeRows, type AccountDays } from './account-days.js';

/** One day's requests of the range at index `range` of those asked for. */
export interface RangeDayCount {
  range: number;
  day: string;
  requests: number;
}

/** Each range's requests per Sydney date (its account's, on its days), oldest first; days without requests are left out. */
export async function dailyRequestsByAccount(db: Kysely<Database>, ranges: readonly AccountDays[]): Promise<RangeDayCount[]> {
  const { rows } = await sql<RangeDayCount>`
    select (r.n - 1)::int as range, u.day, sum(u.requests)::int8 as requests
    from ${rangeRows(ranges)}
    join usage_daily u on u.account_id = r.account_id and u.day between r.from_day and r.to_day
    group by r.n, u.day
    order by r.n, u.day`.execute(db);
  return rows;
}
