// Repository for webhook subscriptions and their deliveries. Plain functions taking `db` or `trx`.
import { randomUUID } from 'node:crypto';
import { sql, type Insertable, type Kysely } from 'kysely';
import type { Plan } from '../domain/plans.js';
import type { Database, WebhookAttemptsTable, WebhookDelivery, WebhookSubscription, WebhookSubscriptionsTable } from './database.js';

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

/** Removes the subscription and its deliveries; false when the account has no such subscription. */
export async function deleteSubscription(db: Kysely<Database>, accountId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('webhook_subscriptions').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
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
  subscriptionId: string;
  rateDate: string;
  /** 1 for the first attempt */
  attempt: number;
  ok: boolean;
  status: number | null;
  error: string | null;
  at: Date;
  durationMs: number;
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
    await insertAttempts(
      trx,
      attempts.map((a) => ({
        delivery_id: a.deliveryId,
        subscription_id: a.subscriptionId,
        event: 'rates.published',
        rate_date: a.rateDate,
        attempt: a.attempt,
        attempted_at: a.at,
        duration_ms: a.durationMs,
        http_status: a.status,
        error: a.error,
        outcome: a.ok ? 'delivered' : 'failed',
      })),
    );
  });
}

/**
 * Records attempts as they were made: the worker's batches, and test deliveries one at a time. An
 * attempt whose subscription was deleted meanwhile is left out rather than failing the batch.
 */
export async function insertAttempts(db: Kysely<Database>, rows: readonly Insertable<WebhookAttemptsTable>[]): Promise<void> {
  if (rows.length === 0) return;
  await sql`
    insert into webhook_attempts (delivery_id, subscription_id, event, rate_date, attempt, attempted_at, duration_ms, http_status, error, outcome)
    select v.delivery_id, v.subscription_id, v.event, v.rate_date, v.attempt, v.attempted_at, v.duration_ms, v.http_status, v.error, v.outcome
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(
      delivery_id uuid, subscription_id text, event text, rate_date date, attempt smallint, attempted_at timestamptz,
      duration_ms integer, http_status smallint, error text, outcome text)
    where exists (select 1 from webhook_subscriptions s where s.id = v.subscription_id)`.execute(db);
}

export interface RecentAttempt {
  deliveryId: string;
  event: WebhookDelivery['event'];
  rateDate: string;
  attempt: number;
  attemptedAt: Date;
  durationMs: number;
  httpStatus: number | null;
  error: string | null;
  outcome: 'delivered' | 'failed';
  /** when the delivery is tried again, for a delivery's latest attempt while it is still pending */
  nextAttemptAt: Date | null;
}

/** A subscription's latest attempts, newest first, each with its delivery's next retry when one is due. */
export async function listRecentAttempts(db: Kysely<Database>, subscriptionId: string, limit: number): Promise<RecentAttempt[]> {
  const rows = await db
    .selectFrom('webhook_attempts as a')
    .leftJoin('webhook_deliveries as d', (join) => join.onRef('d.id', '=', 'a.delivery_id').on('d.state', '=', 'pending').onRef('d.attempts', '=', 'a.attempt'))
    .select([
      'a.delivery_id',
      'a.event',
      'a.rate_date',
      'a.attempt',
      'a.attempted_at',
      'a.duration_ms',
      'a.http_status',
      'a.error',
      'a.outcome',
      'd.next_attempt_at',
    ])
    .where('a.subscription_id', '=', subscriptionId)
    .orderBy('a.attempted_at', 'desc')
    .orderBy('a.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    deliveryId: r.delivery_id,
    event: r.event,
    rateDate: r.rate_date,
    attempt: r.attempt,
    attemptedAt: r.attempted_at,
    durationMs: r.duration_ms,
    httpStatus: r.http_status,
    error: r.error,
    outcome: r.outcome,
    nextAttemptAt: r.next_attempt_at,
  }));
}

/** Deletes up to `limit` attempts made before `before`; resolves with how many went. */
export async function pruneAttempts(db: Kysely<Database>, before: Date, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('webhook_attempts')
    .where('id', 'in', (eb) => eb.selectFrom('webhook_attempts').select('id').where('attempted_at', '<', before).orderBy('attempted_at').limit(limit))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** A delivery whose subscription was deactivated before its attempt: it is not sent. */
export async function abandonDelivery(db: Kysely<Database>, deliveryId: string, at: Date): Promise<void> {
  await db.updateTable('webhook_deliveries').set({ state: 'abandoned', leased_until: null, finished_at: at }).where('id', '=', deliveryId).execute();
}
