// Repository for webhook deliveries: recording a publication's and alerts', claiming the due ones,
// recording their attempts, pruning. Plain functions taking `db` or `trx`.
import { randomUUID } from 'node:crypto';
import { sql, type Insertable, type Kysely } from 'kysely';
import type { Plan } from '../domain/plans.js';
import type { Database, WebhookDeliveriesTable, WebhookDelivery } from './database.js';
import { type DeliveryCountChange, changeDelivery, changeDeliveryCounts, deleteAttempts, insertAttempts, publicationCountChanges } from './webhook-rollups.js';

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
 * the same day a no-op. The subscriptions are read with the lock their deliveries' foreign key
 * takes: one being deleted meanwhile is waited for and left out, rather than failing the
 * publication when its deletion commits.
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
    .forKeyShare('s')
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
  let recorded = 0;
  for (let i = 0; i < rows.length; i += 1000) {
    const inserted = await trx
      .insertInto('webhook_deliveries')
      .values(rows.slice(i, i + 1000))
      .onConflict((oc) => oc.constraint('webhook_deliveries_once').doNothing())
      .returning('id')
      .execute();
    recorded += inserted.length;
  }
  await changeDeliveryCounts(trx, [{ rate_date: day.date, state: 'pending', deliveries: recorded, attempts: 0 }]);
  return rows.length;
}

/**
 * Records the `rates.alert` deliveries of a publication's firings (src/db/alerts.ts), in its
 * transaction; the unique (subscription, event, rate day, alert) makes a second recording a no-op.
 * They stay out of the deliveries' roll-up, which counts publications' deliveries only.
 */
export async function recordAlertDeliveries(trx: Kysely<Database>, rows: readonly Insertable<WebhookDeliveriesTable>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 1000) {
    await trx
      .insertInto('webhook_deliveries')
      .values(rows.slice(i, i + 1000))
      .onConflict((oc) => oc.constraint('webhook_deliveries_once').doNothing())
      .execute();
  }
}

export interface ClaimedDelivery {
  id: string;
  event: WebhookDelivery['event'];
  rateDate: string;
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
    rate_date: string;
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
    returning d.id, d.event, d.rate_date, d.payload, d.attempts, d.created_at, d.subscription_id, s.url, s.secret_ciphertext,
      s.is_active and a.status = 'active' and a.plan in (${sql.join(plans)}) as is_active`.execute(db);
  return result.rows.map((r) => ({
    id: r.id,
    event: r.event,
    rateDate: r.rate_date,
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
  event: WebhookDelivery['event'];
  subscriptionId: string;
  rateDate: string;
  /** 1 for the first attempt */
  attempt: number;
  ok: boolean;
  status: number | null;
  error: string | null;
  at: Date;
  durationMs: number;
  /** the first bytes of the receiver's answer, as text */
  responseBody: string | null;
  /** when to try again after a failure; null when this was the last attempt */
  retryAt: Date | null;
  /** consecutive failures at which a subscription is deactivated (D28) */
  deactivateAt: number;
}

/**
 * Stores attempts' outcomes on their deliveries, the subscriptions' health and the attempts
 * themselves, in one transaction (one commit for a batch of attempts, in the order they finished).
 */
export async function recordAttempts(db: Kysely<Database>, attempts: readonly AttemptRecord[]): Promise<void> {
  if (attempts.length === 0) return;
  await db.transaction().execute(async (trx) => {
    // The batch's subscriptions are locked first, in id order, before any delivery: deleting a
    // subscription locks it before its deliveries, and another process's batch may hold the same
    // subscriptions in another order, so taking them as the batch meets them could deadlock.
    const subscriptionIds = [...new Set(attempts.map((a) => a.subscriptionId))];
    await trx.selectFrom('webhook_subscriptions').select('id').where('id', 'in', subscriptionIds).orderBy('id').forNoKeyUpdate().execute();
    const changes: DeliveryCountChange[] = [];
    for (const attempt of attempts) {
      const finished = attempt.ok || attempt.retryAt === null;
      changes.push(
        ...(await changeDelivery(
          trx,
          attempt.deliveryId,
          {
            state: attempt.ok ? 'delivered' : finished ? 'failed' : 'pending',
            next_attempt_at: attempt.retryAt ?? attempt.at,
            leased_until: null,
            last_status: attempt.status,
            last_error: attempt.error,
            finished_at: finished ? attempt.at : null,
          },
          true,
        )),
      );
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
    await changeDeliveryCounts(trx, changes);
    await insertAttempts(
      trx,
      attempts.map((a) => ({
        delivery_id: a.deliveryId,
        subscription_id: a.subscriptionId,
        event: a.event,
        rate_date: a.rateDate,
        attempt: a.attempt,
        attempted_at: a.at,
        duration_ms: a.durationMs,
        http_status: a.status,
        error: a.error,
        outcome: a.ok ? 'delivered' : 'failed',
        response_body: a.responseBody,
      })),
    );
  });
}

/** Deletes up to `limit` attempts made before `before`; resolves with how many went. */
export async function pruneAttempts(db: Kysely<Database>, before: Date, limit: number): Promise<number> {
  return db
    .transaction()
    .execute((trx) => deleteAttempts(trx, sql`id in (select id from webhook_attempts where attempted_at < ${before} order by attempted_at limit ${limit})`));
}

/** A delivery whose subscription was deactivated before its attempt: it is not sent. */
export async function abandonDelivery(db: Kysely<Database>, deliveryId: string, at: Date): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await changeDeliveryCounts(trx, await changeDelivery(trx, deliveryId, { state: 'abandoned', leased_until: null, finished_at: at }, false));
  });
}

/**
 * Deletes up to `limit` finished deliveries recorded before `before`, taking them off the
 * deliveries' roll-up; resolves with how many went. A pending one stays until its schedule ends.
 */
export async function pruneDeliveries(db: Kysely<Database>, before: Date, limit: number): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const deleted = await trx
      .deleteFrom('webhook_deliveries')
      .where(
        'id',
        'in',
        trx.selectFrom('webhook_deliveries').select('id').where('created_at', '<', before).where('state', '!=', 'pending').orderBy('created_at').limit(limit),
      )
      .returning(['event', 'rate_date', 'state', 'attempts'])
      .execute();
    await changeDeliveryCounts(trx, publicationCountChanges(deleted));
    return deleted.length;
  });
}
