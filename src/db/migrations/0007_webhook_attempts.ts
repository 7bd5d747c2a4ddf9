// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

/**
 * One row per webhook delivery attempt, test deliveries included (event `rates.test`), for the
 * dashboard's recent deliveries and the delivery analytics. `delivery_id` is the
 * X-ExchangeRates-Delivery id; a test delivery has no `webhook_deliveries` row, so it is no
 * foreign key. Rows older than the retention (README, "Webhooks") are pruned by the delivery worker.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('delivery_id', 'uuid', (c) => c.notNull())
    .addColumn('subscription_id', 'text', (c) => c.notNull().references('webhook_subscriptions.id').onDelete('cascade'))
    .addColumn('event', 'text', (c) => c.notNull().check(sql`event in ('rates.published', 'rates.test')`))
    .addColumn('rate_date', 'date', (c) => c.notNull())
    .addColumn('attempt', 'smallint', (c) => c.notNull())
    .addColumn('attempted_at', 'timestamptz', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('http_status', 'smallint')
    .addColumn('error', 'text')
    .addColumn('outcome', 'text', (c) => c.notNull().check(sql`outcome in ('delivered', 'failed')`))
    .execute();
  await db.schema.createIndex('webhook_attempts_subscription').on('webhook_attempts').columns(['subscription_id', 'attempted_at desc', 'id desc']).execute();
  await db.schema.createIndex('webhook_attempts_attempted_at').on('webhook_attempts').column('attempted_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_attempts').execute();
}
