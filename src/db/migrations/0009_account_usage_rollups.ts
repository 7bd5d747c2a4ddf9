// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

/**
 * Two more roll-ups of `usage_daily` beside the monthly one of 0008, written in the same batched
 * writes (src/db/usage.ts), so that the busiest accounts over a year are summed from about one row
 * per account and period rather than from every row of the year: keyed requests per account and
 * Sydney day, and per account and year (its first day). Both filled here from what is stored.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('usage_account_daily')
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('account_id', 'uuid', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('requests', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_account_daily_pkey', ['day', 'account_id'])
    .execute();
  await sql`
    insert into usage_account_daily (day, account_id, requests)
    select day, account_id, sum(requests) from usage_daily group by day, account_id`.execute(db);

  await db.schema
    .createTable('usage_account_yearly')
    .addColumn('year', 'date', (c) => c.notNull())
    .addColumn('account_id', 'uuid', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('requests', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_account_yearly_pkey', ['year', 'account_id'])
    .execute();
  await sql`
    insert into usage_account_yearly (year, account_id, requests)
    select date_trunc('year', day)::date, account_id, sum(requests) from usage_daily group by 1, 2`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('usage_account_yearly').execute();
  await db.schema.dropTable('usage_account_daily').execute();
}
