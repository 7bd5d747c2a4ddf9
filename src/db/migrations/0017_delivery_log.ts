// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

/**
 * The delivery log (D42): a subscription's deliveries newest first, read through the key, and when
 * a delivery was last redelivered by hand, which tells a failed redelivery (no attempt planned)
 * from a delivery whose retry schedule ran out.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table webhook_deliveries add column redelivered_at timestamptz`.execute(db);
  await sql`create index webhook_deliveries_subscription on webhook_deliveries (subscription_id, created_at desc, id desc)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index webhook_deliveries_subscription`.execute(db);
  await sql`alter table webhook_deliveries drop column redelivered_at`.execute(db);
}
