// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

/**
 * What the analytics record beside `usage_daily`, aggregated per Sydney day in the same batched
 * writes (src/rest/usage.ts): the pairs /convert answered, keyed and keyless, dated or latest; and
 * keyless /convert requests by outcome, which have no account. And one row per RBA poll of the
 * scheduler, kept 90 days (src/jobs/rba-scheduler.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
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
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('rba_polls').execute();
  await db.schema.dropTable('keyless_usage_daily').execute();
  await db.schema.dropTable('conversions_daily').execute();
}
