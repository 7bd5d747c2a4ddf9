import { sql, type Kysely } from 'kysely';
import type { ConversionsDailyTable, Database, KeylessUsageDailyTable, UsageDailyTable } from './database.js';

/** One flush of the counts held in memory: each row's `requests` is added to what is stored. */
export interface UsageBatch {
  keyed: UsageDailyTable[];
  keyless: KeylessUsageDailyTable[];
  conversions: ConversionsDailyTable[];
}

/** the stored count plus the batch's (the table named: a bare column would be ambiguous beside `excluded`) */
const addRequests = (table: 'usage_daily' | 'keyless_usage_daily' | 'conversions_daily') => sql<number>`${sql.ref(`${table}.requests`)} + excluded.requests`;

/** Adds a batch of request counts to the daily rows, all or nothing. */
export async function addUsage(db: Kysely<Database>, batch: UsageBatch): Promise<void> {
  if (batch.keyed.length + batch.keyless.length + batch.conversions.length === 0) return;
  await db.transaction().execute(async (trx) => {
    if (batch.keyed.length > 0) {
      await trx
        .insertInto('usage_daily')
        .values(batch.keyed)
        .onConflict((oc) => oc.columns(['day', 'account_id', 'key_id', 'endpoint', 'status']).doUpdateSet({ requests: addRequests('usage_daily') }))
        .execute();
    }
    if (batch.keyless.length > 0) {
      await trx
        .insertInto('keyless_usage_daily')
        .values(batch.keyless)
        .onConflict((oc) => oc.columns(['day', 'endpoint', 'status']).doUpdateSet({ requests: addRequests('keyless_usage_daily') }))
        .execute();
    }
    if (batch.conversions.length > 0) {
      await trx
        .insertInto('conversions_daily')
        .values(batch.conversions)
        .onConflict((oc) => oc.columns(['day', 'from_code', 'to_code', 'keyed', 'dated']).doUpdateSet({ requests: addRequests('conversions_daily') }))
        .execute();
    }
  });
}
