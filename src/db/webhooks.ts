// Repository for webhook subscriptions and their deliveries. Plain functions taking `db` or `trx`.
import { randomUUID } from 'node:crypto';
import { sql, type Insertable, type Kysely } from 'kysely';
import type { Database, Plan, WebhookDelivery, WebhookSubscription, WebhookSubscriptionsTable } from './database.js';

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
  return db
    .selectFrom('webhook_subscriptions')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function findSubscription(db: Kysely<Database>, accountId: string, id: string): Promise<WebhookSubscription | undefined> {
  return db
    .selectFrom('webhook_subscriptions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Removes the subscription and its deliveries; false when the account has no such subscription. */
export async function deleteSubscription(db: Kysely<Database>, accountId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('webhook_subscriptions').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Activates (resetting the failure count, D28 in docs/decisions.md) or deactivates a subscription. */
export async function setSubscriptionActive(
  db: Kysely<Database>,
  accountId: string,
  id: string,
  active: boolean,
): Promise<WebhookSubscription | undefined> {
  return db
    .updateTable('webhook_subscriptions')
    .set(active ? { is_active: true, failure_count: 0 } : { is_active: false })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** Plans whose accounts receive deliveries. */
export type PlansWithWebhooks = readonly Plan[];

export interface PublishedDay {
  publicationId: number;
  date: string;
  recordedAt: Date;
}

/**
 * Records one `rates.published` delivery per active subscription of an active account whose plan
 * has webhooks (D29). Runs inside the transaction that stores the new day, so the day and its
 * deliveries commit together; the unique (subscription, event, date) makes a second recording of
 * the same day a no-op.
 */
export async function recordPublicationDeliveries(
  trx: Kysely<Database>,
  day: PublishedDay,
  plans: PlansWithWebhooks,
  payloadOf: (deliveryId: string, currencies: readonly string[] | null) => string,
): Promise<number> {
  if (plans.length === 0) return 0;
  const subscriptions = await trx
    .selectFrom('webhook_subscriptions as s')
    .innerJoin('accounts as a', 'a.id', 's.account_id')
    .select(['s.id', 's.currencies'])
    .where('s.is_active', '=', true)
    .where('a.status', '=', 'active')
    .where('a.plan', 'in', plans as Plan[])
    .execute();
  const rows = subscriptions.map((s) => {
    const id = randomUUID();
    return {
      id,
      subscription_id: s.id,
      event: 'rates.published' as const,
      rate_date: day.date,
      publication_id: day.publicationId,
      payload: payloadOf(id, s.currencies),
      next_attempt_at: day.recordedAt,
      created_at: day.recordedAt,
    };
  });
  for (let i = 0; i < rows.length; i += 1000) {
    await trx
      .insertInto('webhook_deliveries')
      .values(rows.slice(i, i + 1000))
      .onConflict((oc) => oc.constraint('webhook_deliveries_once').doNothing())
      .execute();
  }
  return rows.length;
}

export interface ClaimedDelivery {
  id: string;
  event: WebhookDelivery['event'];
  payload: string;
  attempts: number;
  createdAt: Date;
  subscriptionId: string;
  url: string;
  secretCiphertext: string;
  /** the subscription is active and its account active on a plan with webhooks: else nothing is sent */
  subscriptionActive: boolean;
}

/**
 * Leases up to `limit` due deliveries to this process until `leasedUntil`. A delivery whose lease
 * ran out (its process died mid-attempt) is due again and keeps its id. SKIP LOCKED lets several
 * processes claim at once without waiting on each other or taking the same row.
 */
export async function claimDueDeliveries(
  db: Kysely<Database>,
  now: Date,
  leasedUntil: Date,
  limit: number,
  plans: PlansWithWebhooks,
): Promise<ClaimedDelivery[]> {
  const result = await sql<{
    id: string;
    event: WebhookDelivery['event'];
    payload: string;
    attempts: number;
    created_at: Date;
    subscription_id: string;
    url: string;
    secret_ciphertext: string;
    is_active: boolean;
  }>`
    with due as (
      select id from webhook_deliveries
      where state = 'pending' and next_attempt_at <= ${now} and (leased_until is null or leased_until <= ${now})
      order by next_attempt_at
      limit ${limit}
      for update skip locked
    )
    update webhook_deliveries d set leased_until = ${leasedUntil}
    from due, webhook_subscriptions s, accounts a
    where d.id = due.id and s.id = d.subscription_id and a.id = s.account_id
    returning d.id, d.event, d.payload, d.attempts, d.created_at, d.subscription_id, s.url, s.secret_ciphertext,
      s.is_active and a.status = 'active' and a.plan in (${sql.join(plans)}) as is_active`.execute(db);
  return result.rows.map((r) => ({
    id: r.id,
    event: r.event,
    payload: r.payload,
    attempts: r.attempts,
    createdAt: r.created_at,
    subscriptionId: r.subscription_id,
    url: r.url,
    secretCiphertext: r.secret_ciphertext,
    subscriptionActive: r.is_active,
  }));
}

export interface AttemptRecord {
  deliveryId: string;
  subscriptionId: string;
  ok: boolean;
  status: number | null;
  error: string | null;
  at: Date;
  /** when to try again after a failure; null when this was the last attempt */
  retryAt: Date | null;
  /** consecutive failures at which a subscription is deactivated (D28) */
  deactivateAt: number;
}

/**
 * Stores attempts' outcomes on their deliveries and the subscriptions' health, in one transaction
 * (one commit for a batch of attempts, in the order they finished).
 */
export async function recordAttempts(db: Kysely<Database>, attempts: readonly AttemptRecord[]): Promise<void> {
  if (attempts.length === 0) return;
  await db.transaction().execute(async (trx) => {
    for (const attempt of attempts) {
      const finished = attempt.ok || attempt.retryAt === null;
      await trx
        .updateTable('webhook_deliveries')
        .set((eb) => ({
          attempts: eb('attempts', '+', 1),
          state: attempt.ok ? 'delivered' : finished ? 'failed' : 'pending',
          next_attempt_at: attempt.retryAt ?? attempt.at,
          leased_until: null,
          last_status: attempt.status,
          last_error: attempt.error,
          finished_at: finished ? attempt.at : null,
        }))
        .where('id', '=', attempt.deliveryId)
        .execute();
      if (attempt.ok) {
        await trx
          .updateTable('webhook_subscriptions')
          .set({ failure_count: 0, last_success_at: attempt.at })
          .where('id', '=', attempt.subscriptionId)
          .execute();
      } else {
        await trx
          .updateTable('webhook_subscriptions')
          .set((eb) => ({
            failure_count: eb('failure_count', '+', 1),
            is_active: sql<boolean>`is_active and failure_count + 1 < ${attempt.deactivateAt}`,
          }))
          .where('id', '=', attempt.subscriptionId)
          .execute();
      }
    }
  });
}

/** A delivery whose subscription was deactivated before its attempt: it is not sent. */
export async function abandonDelivery(db: Kysely<Database>, deliveryId: string, at: Date): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ state: 'abandoned', leased_until: null, finished_at: at })
    .where('id', '=', deliveryId)
    .execute();
}
