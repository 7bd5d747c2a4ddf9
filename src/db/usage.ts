import { sql, type Kysely } from 'kysely';
import type {
  ConversionsDailyTable,
  ConversionsMonthlyTable,
  Database,
  KeylessUsageDailyTable,
  UsageAccountDailyTable,
  UsageAccountMonthlyTable,
  UsageAccountYearlyTable,
  UsageDailyTable,
  UsageTotalsDailyTable,
} from './database.js';

/** One flush of the counts held in memory: each row's `requests` is added to what is stored. */
export interface UsageBatch {
  keyed: UsageDailyTable[];
  keyless: KeylessUsageDailyTable[];
  conversions: ConversionsDailyTable[];
}

type CountTable =
  | 'usage_daily'
  | 'usage_totals_daily'
  | 'usage_account_daily'
  | 'usage_account_monthly'
  | 'usage_account_yearly'
  | 'keyless_usage_daily'
  | 'conversions_daily'
  | 'conversions_monthly';
/** the stored count plus the batch's (the table named: a bare column would be ambiguous beside `excluded`) */
const addRequests = (table: CountTable) => sql<number>`${sql.ref(`${table}.requests`)} + excluded.requests`;

/**
 * Sums rows that share a key (one statement may not update the same row twice), in the order of
 * their keys: every process's flush then locks the rows it shares with another's in the same order,
 * table after table, so two flushes wait for each other rather than deadlock.
 */
function rollUp<From, Row extends { requests: number }>(
  rows: readonly (From & { requests: number })[],
  keyOf: (row: From) => string,
  make: (row: From & { requests: number }) => Row,
): Row[] {
  const sums = new Map<string, Row>();
  for (const row of rows) {
    const key = keyOf(row);
    const sum = sums.get(key);
    if (sum) sum.requests += row.requests;
    else sums.set(key, make(row));
  }
  return [...sums].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
}

/** A table's own rows, summed and in key order (rollUp). */
const inKeyOrder = <Row extends { requests: number }>(rows: readonly Row[], keyOf: (row: Row) => string): Row[] => rollUp(rows, keyOf, (row) => ({ ...row }));

const monthOf = (day: string) => `${day.slice(0, 8)}01`;
const yearOf = (day: string) => `${day.slice(0, 5)}01-01`;

/** Adds a batch of request counts to the daily rows and the roll-ups of the keyed ones, all or nothing. */
export async function addUsage(db: Kysely<Database>, batch: UsageBatch): Promise<void> {
  if (batch.keyed.length + batch.keyless.length + batch.conversions.length === 0) return;
  await db.transaction().execute(async (trx) => {
    if (batch.keyed.length > 0) {
      await trx
        .insertInto('usage_daily')
        .values(inKeyOrder(batch.keyed, (r) => `${r.day} ${r.account_id} ${r.key_id} ${r.endpoint} ${r.status}`))
        .onConflict((oc) => oc.columns(['day', 'account_id', 'key_id', 'endpoint', 'status']).doUpdateSet({ requests: addRequests('usage_daily') }))
        .execute();
      const totals = rollUp<UsageDailyTable, UsageTotalsDailyTable>(
        batch.keyed,
        (r) => `${r.day} ${r.endpoint} ${r.status}`,
        (r) => ({ day: r.day, endpoint: r.endpoint, status: r.status, requests: r.requests }),
      );
      await trx
        .insertInto('usage_totals_daily')
        .values(totals)
        .onConflict((oc) => oc.columns(['day', 'endpoint', 'status']).doUpdateSet({ requests: addRequests('usage_totals_daily') }))
        .execute();
      const days = rollUp<UsageDailyTable, UsageAccountDailyTable>(
        batch.keyed,
        (r) => `${r.day} ${r.account_id}`,
        (r) => ({ day: r.day, account_id: r.account_id, requests: r.requests }),
      );
      await trx
        .insertInto('usage_account_daily')
        .values(days)
        .onConflict((oc) => oc.columns(['day', 'account_id']).doUpdateSet({ requests: addRequests('usage_account_daily') }))
        .execute();
      const months = rollUp<UsageDailyTable, UsageAccountMonthlyTable>(
        batch.keyed,
        (r) => `${monthOf(r.day)} ${r.account_id}`,
        (r) => ({ month: monthOf(r.day), account_id: r.account_id, requests: r.requests }),
      );
      await trx
        .insertInto('usage_account_monthly')
        .values(months)
        .onConflict((oc) => oc.columns(['month', 'account_id']).doUpdateSet({ requests: addRequests('usage_account_monthly') }))
        .execute();
      const years = rollUp<UsageDailyTable, UsageAccountYearlyTable>(
        batch.keyed,
        (r) => `${yearOf(r.day)} ${r.account_id}`,
        (r) => ({ year: yearOf(r.day), account_id: r.account_id, requests: r.requests }),
      );
      await trx
        .insertInto('usage_account_yearly')
        .values(years)
        .onConflict((oc) => oc.columns(['year', 'account_id']).doUpdateSet({ requests: addRequests('usage_account_yearly') }))
        .execute();
    }
    if (batch.keyless.length > 0) {
      await trx
        .insertInto('keyless_usage_daily')
        .values(inKeyOrder(batch.keyless, (r) => `${r.day} ${r.endpoint} ${r.status}`))
        .onConflict((oc) => oc.columns(['day', 'endpoint', 'status']).doUpdateSet({ requests: addRequests('keyless_usage_daily') }))
        .execute();
    }
    if (batch.conversions.length > 0) {
      await trx
        .insertInto('conversions_daily')
        .values(inKeyOrder(batch.conversions, (r) => `${r.day} ${r.from_code} ${r.to_code} ${r.keyed} ${r.dated}`))
        .onConflict((oc) => oc.columns(['day', 'from_code', 'to_code', 'keyed', 'dated']).doUpdateSet({ requests: addRequests('conversions_daily') }))
        .execute();
      const months = rollUp<ConversionsDailyTable, ConversionsMonthlyTable>(
        batch.conversions,
        (r) => `${monthOf(r.day)} ${r.from_code} ${r.to_code} ${r.keyed} ${r.dated}`,
        ({ day, ...rest }) => ({ ...rest, month: monthOf(day) }),
      );
      await trx
        .insertInto('conversions_monthly')
        .values(months)
        .onConflict((oc) => oc.columns(['month', 'from_code', 'to_code', 'keyed', 'dated']).doUpdateSet({ requests: addRequests('conversions_monthly') }))
        .execute();
    }
  });
}
