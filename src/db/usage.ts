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
