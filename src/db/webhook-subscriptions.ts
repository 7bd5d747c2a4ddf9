// Repository for webhook subscriptions. Plain functions taking `db` or `trx`.
import { sql, type Insertable, type Kysely } from 'kysely';
import type { Database, WebhookSubscription, WebhookSubscriptionsTable } from './database.js';
import { changeDeliveryCounts, deleteAttempts, publicationCountChanges } from './webhook-rollups.js';

export async function insertSubscription(db: Kysely<Database>, row: Insertable<WebhookSubscriptionsTable>): Promise<WebhookSubscription> {
  return db.insertInto('webhook_subscriptions').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function countSubscriptions(db: Kysely<Database>, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_subscriptions')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function listSubscriptions(db: Kysely<Database>, accountId: string): Promise<WebhookSubscription[]> {
  return db.selectFrom('webhook_subscriptions').selectAll().where('account_id', '=', accountId).orderBy('created_at').orderBy('id').execute();
}

export async function findSubscription(db: Kysely<Database>, accountId: string, id: string): Promise<WebhookSubscription | undefined> {
  return db.selectFrom('webhook_subscriptions').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

/**
 * Removes the subscription with its deliveries and attempts, taking them off the roll-ups; false
 * when the account has no such subscription. The subscription is locked first, so no delivery of
 * it is recorded between the count and the delete.
 */
export async function deleteSubscription(db: Kysely<Database>, accountId: string, id: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const subscription = await trx
      .selectFrom('webhook_subscriptions')
      .select('id')
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
    if (!subscription) return false;
    const deliveries = await trx
      .deleteFrom('webhook_deliveries')
      .where('subscription_id', '=', id)
      .returning(['event', 'rate_date', 'state', 'attempts'])
      .execute();
    await changeDeliveryCounts(trx, publicationCountChanges(deliveries));
    await deleteAttempts(trx, sql`subscription_id = ${id}`);
    await trx.deleteFrom('webhook_subscriptions').where('id', '=', id).execute();
    return true;
  });
}

/** Activates (resetting the failure count, D28 in docs/decisions.md) or deactivates a subscription. */
export async function setSubscriptionActive(db: Kysely<Database>, accountId: string, id: string, active: boolean): Promise<WebhookSubscription | undefined> {
  return db
    .updateTable('webhook_subscriptions')
    .set(active ? { is_active: true, failure_count: 0 } : { is_active: false })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}
