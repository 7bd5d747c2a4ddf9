import { sql, type Kysely, type Transaction } from 'kysely';
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

/** The count tables: each row is a key and a number of requests. */
interface CountTables {
  usage_daily: UsageDailyTable;
  usage_totals_daily: UsageTotalsDailyTable;
  usage_account_daily: UsageAccountDailyTable;
  usage_account_monthly: UsageAccountMonthlyTable;
  usage_account_yearly: UsageAccountYearlyTable;
  keyless_usage_daily: KeylessUsageDailyTable;
  conversions_daily: ConversionsDailyTable;
  conversions_monthly: ConversionsMonthlyTable;
}

/** The SQL type of each key column of the count tables (src/db/schema.sql), for the arrays that carry them. */
const KEY_COLUMN_TYPES = {
  day: 'date',
  month: 'date',
  year: 'date',
  account_id: 'uuid',
  key_id: 'uuid',
  endpoint: 'text',
  status: 'smallint',
  from_code: 'text',
  to_code: 'text',
  keyed: 'boolean',
  dated: 'boolean',
} as const;
type KeyColumn = keyof typeof KEY_COLUMN_TYPES;

/**
 * Adds each row's `requests` to the stored row with its key, or stores it. The rows travel as one
 * array per column, read back by `unnest`: a statement of a few parameters whatever the number of
 * rows, which the database parses and plans in a fraction of the time a row of parameters each takes.
 * `unnest` gives the rows back in their order, so they are still locked in key order (rollUp).
 */
async function addCounts<Table extends keyof CountTables>(
  trx: Transaction<Database>,
  table: Table,
  key: readonly (KeyColumn & keyof CountTables[Table])[],
  rows: readonly CountTables[Table][],
): Promise<void> {
  const columns = [...key, 'requests' as const];
  const arrays = columns.map((column) => {
    const values = rows.map((row) => row[column as keyof CountTables[Table]]);
    return sql`${values}::${sql.raw(column === 'requests' ? 'bigint' : KEY_COLUMN_TYPES[column])}[]`;
  });
  await sql`
    insert into ${sql.table(table)} (${sql.join(columns.map((column) => sql.ref(column)))})
    select * from unnest(${sql.join(arrays)})
    on conflict (${sql.join(key.map((column) => sql.ref(column)))}) do update set requests = ${sql.ref(`${table}.requests`)} + excluded.requests`.execute(trx);
}

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
      await addCounts(
        trx,
        'usage_daily',
        ['day', 'account_id', 'key_id', 'endpoint', 'status'],
        inKeyOrder(batch.keyed, (r) => `${r.day} ${r.account_id} ${r.key_id} ${r.endpoint} ${r.status}`),
      );
      const totals = rollUp<UsageDailyTable, UsageTotalsDailyTable>(
        batch.keyed,
        (r) => `${r.day} ${r.endpoint} ${r.status}`,
        (r) => ({ day: r.day, endpoint: r.endpoint, status: r.status, requests: r.requests }),
      );
      await addCounts(trx, 'usage_totals_daily', ['day', 'endpoint', 'status'], totals);
      const days = rollUp<UsageDailyTable, UsageAccountDailyTable>(
        batch.keyed,
        (r) => `${r.day} ${r.account_id}`,
        (r) => ({ day: r.day, account_id: r.account_id, requests: r.requests }),
      );
      await addCounts(trx, 'usage_account_daily', ['day', 'account_id'], days);
      const months = rollUp<UsageDailyTable, UsageAccountMonthlyTable>(
        batch.keyed,
        (r) => `${monthOf(r.day)} ${r.account_id}`,
        (r) => ({ month: monthOf(r.day), account_id: r.account_id, requests: r.requests }),
      );
      await addCounts(trx, 'usage_account_monthly', ['month', 'account_id'], months);
      const years = rollUp<UsageDailyTable, UsageAccountYearlyTable>(
        batch.keyed,
        (r) => `${yearOf(r.day)} ${r.account_id}`,
        (r) => ({ year: yearOf(r.day), account_id: r.account_id, requests: r.requests }),
      );
      await addCounts(trx, 'usage_account_yearly', ['year', 'account_id'], years);
    }
    if (batch.keyless.length > 0) {
      await addCounts(
        trx,
        'keyless_usage_daily',
        ['day', 'endpoint', 'status'],
        inKeyOrder(batch.keyless, (r) => `${r.day} ${r.endpoint} ${r.status}`),
      );
    }
    if (batch.conversions.length > 0) {
      const key = ['from_code', 'to_code', 'keyed', 'dated'] as const;
      await addCounts(
        trx,
        'conversions_daily',
        ['day', ...key],
        inKeyOrder(batch.conversions, (r) => `${r.day} ${r.from_code} ${r.to_code} ${r.keyed} ${r.dated}`),
      );
      const months = rollUp<ConversionsDailyTable, ConversionsMonthlyTable>(
        batch.conversions,
        (r) => `${monthOf(r.day)} ${r.from_code} ${r.to_code} ${r.keyed} ${r.dated}`,
        ({ day, ...rest }) => ({ ...rest, month: monthOf(day) }),
      );
      await addCounts(trx, 'conversions_monthly', ['month', ...key], months);
    }
  });
}
