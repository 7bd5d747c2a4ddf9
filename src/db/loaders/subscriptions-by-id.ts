import type { Kysely } from 'kysely';
import type { Database, WebhookSubscription } from '../database.js';

/** The webhook subscriptions with these ids, in no order. */
export async function subscriptionsById(db: Kysely<Database>, ids: readonly string[]): Promise<WebhookSubscription[]> {
  return db
    .selectFrom('webhook_subscriptions')
    .selectAll()
    .where((eb) => eb('id', '=', eb.fn.any(eb.val(ids))))
    .execute();
}
