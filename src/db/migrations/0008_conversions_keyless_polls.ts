// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

/**
 * What the analytics record beside `usage_daily`, aggregated per Sydney day in the same batched
 * writes (src/rest/usage.ts): the pairs /convert answered, keyed and keyless, dated or latest; and
 * keyless /convert requests by outcome, which have no account. Two roll-ups of `usage_daily`, so a
 * year of 10,000 accounts is not summed row by row: keyed requests per day, endpoint and status
 * (no account), and per account and month (filled here from what is stored). And one row per RBA
 * poll of the scheduler, kept 90 days (src/jobs/rba-scheduler.ts). And indexes by rate day on
 * webhook deliveries and attempts, which the webhook analytics read across subscriptions.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('usage_totals_daily')
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('endpoint', 'text', (c) => c.notNull())
    .addColumn('status', 'smallint', (c) => c.notNull())
    .addColumn('requests', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_totals_daily_pkey', ['day', 'endpoint', 'status'])
    .execute();
  await sql`
    insert into usage_totals_daily (day, endpoint, status, requests)
    select day, endpoint, status, sum(requests) from usage_daily group by day, endpoint, status`.execute(db);

  await db.schema
    .createTable('usage_account_monthly')
    .addColumn('month', 'date', (c) => c.notNull())
    .addColumn('account_id', 'uuid', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('requests', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_account_monthly_pkey', ['month', 'account_id'])
    .execute();
  await sql`
    insert into usage_account_monthly (month, account_id, requests)
    select date_trunc('month', day)::date, account_id, sum(requests) from usage_daily group by 1, 2`.execute(db);

  await db.schema
    .createTable('conversions_daily')
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('from_code', 'text', (c) => c.notNull())
    .addColumn('to_code', 'text', (c) => c.notNull())
    .addColumn('keyed', 'boolean', (c) => c.notNull())
    .addColumn('dated', 'boolean', (c) => c.notNull())
    .addColumn('requests', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('conversions_daily_pkey', ['day', 'from_code', 'to_code', 'keyed', 'dated'])
    .execute();

  // the same per month (its first day), for ranges of whole months
  await db.schema
    .createTable('conversions_monthly')
    .addColumn('month', 'date', (c) => c.notNull())
    .addColumn('from_code', 'text', (c) => c.notNull())
    .addColumn('to_code', 'text', (c) => c.notNull())
    .addColumn('keyed', 'boolean', (c) => c.notNull())
    .addColumn('dated', 'boolean', (c) => c.notNull())
    .addColumn('requests', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('conversions_monthly_pkey', ['month', 'from_code', 'to_code', 'keyed', 'dated'])
    .execute();

  await db.schema
    .createTable('keyless_usage_daily')
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('endpoint', 'text', (c) => c.notNull())
    .addColumn('status', 'smallint', (c) => c.notNull())
    .addColumn('requests', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('keyless_usage_daily_pkey', ['day', 'endpoint', 'status'])
    .execute();

  await db.schema
    .createTable('rba_polls')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('polled_at', 'timestamptz', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('expected_date', 'date', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull().check(sql`outcome in ('stored', 'not_published', 'failed')`))
    .addColumn('sources', sql`text[]`, (c) => c.notNull())
    .addColumn('days_stored', 'integer', (c) => c.notNull())
    .addColumn('days_updated', 'integer', (c) => c.notNull())
    .addColumn('newest_date', 'date')
    .addColumn('error', 'text')
    .execute();
  await db.schema.createIndex('rba_polls_polled_at').on('rba_polls').column('polled_at').execute();

  // webhookHealth's overall counts and latency read a range of rate days across every subscription
  await db.schema.createIndex('webhook_deliveries_rate_date').on('webhook_deliveries').columns(['rate_date', 'event']).execute();
  await db.schema.createIndex('webhook_attempts_rate_date').on('webhook_attempts').columns(['rate_date', 'event']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('webhook_attempts_rate_date').execute();
  await db.schema.dropIndex('webhook_deliveries_rate_date').execute();
  await db.schema.dropTable('rba_polls').execute();
  await db.schema.dropTable('keyless_usage_daily').execute();
  await db.schema.dropTable('conversions_monthly').execute();
  await db.schema.dropTable('conversions_daily').execute();
  await db.schema.dropTable('usage_account_monthly').execute();
  await db.schema.dropTable('usage_totals_daily').execute();
}
