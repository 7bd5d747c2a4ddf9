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

export interface AccountUsageRow {
  day: string;
  key_id: string;
  key_prefix: string;
  key_last_four: string;
  endpoint: string;
  status: number;
  requests: number;
}

/** One account's daily counts over an inclusive range of Sydney dates, with each key's recognisable parts. */
export async function accountUsage(db: Kysely<Database>, accountId: string, from: string, to: string): Promise<AccountUsageRow[]> {
  return db
    .selectFrom('usage_daily as u')
    .innerJoin('api_keys as k', 'k.id', 'u.key_id')
    .select(['u.day', 'u.key_id', 'k.prefix as key_prefix', 'k.last_four as key_last_four', 'u.endpoint', 'u.status', 'u.requests'])
    .where('u.account_id', '=', accountId)
    .where('u.day', '>=', from)
    .where('u.day', '<=', to)
    .orderBy('u.day')
    .execute();
}
