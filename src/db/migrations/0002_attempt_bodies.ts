// Frozen once shipped: the bodies the delivery log shows for each attempt.
import { sql, type Kysely } from 'kysely';

/**
 * `request_body`: the body a test delivery sent (a publication's is its delivery's `payload`), so a
 * test can be redelivered as it was. `response_body`: the first bytes of the receiver's answer, as
 * text; the sender keeps at most RESPONSE_BODY_KEPT_BYTES (src/webhooks/send.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table webhook_attempts add column request_body text, add column response_body text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table webhook_attempts drop column request_body, drop column response_body`.execute(db);
}
