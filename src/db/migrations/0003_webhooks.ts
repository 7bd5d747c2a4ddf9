// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_subscriptions')
    .addColumn('id', 'text', (c) => c.primaryKey()) // 32 lower-case hex (D26 in docs/decisions.md)
    .addColumn('account_id', 'uuid', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    // null: every code, now and later (D26)
    .addColumn('currencies', sql`text[]`)
    .addColumn('description', 'text')
    // AES-256-GCM: nonce, tag and ciphertext of the signing secret; never the secret itself
    .addColumn('secret_ciphertext', 'text', (c) => c.notNull())
    .addColumn('is_active', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('failure_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_success_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('webhook_subscriptions_account').on('webhook_subscriptions').column('account_id').execute();

  // One row per subscription and event: the delivery id stays the same on every retry (D27, D28).
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('subscription_id', 'text', (c) => c.notNull().references('webhook_subscriptions.id').onDelete('cascade'))
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('rate_date', 'date', (c) => c.notNull())
    .addColumn('publication_id', 'integer', (c) => c.notNull().references('publications.id'))
    // the exact body sent on every attempt, so retries are byte-identical
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) =>
      c
        .notNull()
        .defaultTo('pending')
        .check(sql`state in ('pending', 'delivered', 'failed', 'abandoned')`),
    )
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'timestamptz', (c) => c.notNull())
    // a process working on the delivery holds it until then; after that another may take it over
    .addColumn('leased_until', 'timestamptz')
    .addColumn('last_status', 'smallint')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('finished_at', 'timestamptz')
    .addUniqueConstraint('webhook_deliveries_once', ['subscription_id', 'event', 'rate_date'])
    .execute();
  await sql`create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where state = 'pending'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhook_subscriptions').execute();
}
