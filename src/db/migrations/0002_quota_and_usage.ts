// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('accounts')
    // The day of month the quota resets (D17 in docs/decisions.md): the sign-up day unless the
    // operator sets another.
    .addColumn('billing_day', 'smallint', (c) =>
      c
        .notNull()
        .defaultTo(sql`extract(day from now())`)
        .check(sql`billing_day between 1 and 31`),
    )
    // The period the count belongs to; a request in a later period starts the count again.
    .addColumn('quota_period', 'date', (c) => c.notNull().defaultTo('1970-01-01'))
    .addColumn('quota_used', 'integer', (c) =>
      c
        .notNull()
        .defaultTo(0)
        .check(sql`quota_used >= 0`),
    )
    .execute();
  await sql`update accounts set billing_day = extract(day from created_at at time zone 'UTC')`.execute(db);

  // Per-request usage, aggregated by day, account, key, endpoint and status, for analytics.
  await db.schema
    .createTable('usage_daily')
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('account_id', 'uuid', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('key_id', 'uuid', (c) => c.notNull().references('api_keys.id').onDelete('cascade'))
    .addColumn('endpoint', 'text', (c) => c.notNull())
    .addColumn('status', 'smallint', (c) => c.notNull())
    .addColumn('requests', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_daily_pkey', ['day', 'account_id', 'key_id', 'endpoint', 'status'])
    .execute();

  // Keyless /convert (D19): one fixed window per client, opened by its first counted request.
  await db.schema
    .createTable('free_convert_windows')
    .addColumn('client', 'text', (c) => c.primaryKey())
    .addColumn('window_start', 'timestamptz', (c) => c.notNull())
    .addColumn('requests', 'integer', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('free_convert_windows').execute();
  await db.schema.dropTable('usage_daily').execute();
  await db.schema.alterTable('accounts').dropColumn('quota_used').dropColumn('quota_period').dropColumn('billing_day').execute();
}
