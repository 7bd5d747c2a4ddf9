import type { Kysely } from 'kysely';
import type { Database, WebhookSubscription } from '../database.js';

/** The webhook subscriptions of these accounts, each account's oldest first. */
export async function subscriptionsByAccount(db: Kysely<Database>, accountIds: readonly string[]): Promise<WebhookSubscription[]> {
  return db
    .selectFrom('webhook_subscriptions')
    .selectAll()
    .where((eb) => eb('account_id', '=', eb.fn.any(eb.val(accountIds))))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}
