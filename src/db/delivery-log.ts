// Repository for a subscription's delivery log (its recent attempts, deliveries with their attempts)
// and redelivery by hand. Plain functions taking `db` or `trx`.
import { sql, type Insertable, type Kysely } from 'kysely';
import type { Database, WebhookAttemptsTable, WebhookDelivery } from './database.js';
import { changeDelivery, changeDeliveryCounts, insertAttempts } from './webhook-rollups.js';

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
  /** the body sent; null for a publication's delivery already pruned */
  requestBody: string | null;
  /** the first bytes of the receiver's answer, as text; null when it gave none */
  responseBody: string | null;
}

/** A subscription's latest attempts, newest first, each with its delivery's next retry when one is due. */
export async function listRecentAttempts(db: Kysely<Database>, subscriptionId: string, limit: number): Promise<RecentAttempt[]> {
  const rows = await db
    .selectFrom('webhook_attempts as a')
    .leftJoin('webhook_deliveries as d', (join) => join.onRef('d.id', '=', 'a.delivery_id').on('d.state', '=', 'pending').onRef('d.attempts', '=', 'a.attempt'))
    .leftJoin('webhook_deliveries as p', 'p.id', 'a.delivery_id')
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
      'a.request_body',
      'a.response_body',
      'p.payload',
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
    requestBody: r.request_body ?? r.payload,
    responseBody: r.response_body,
  }));
}
/** A delivery's state as the delivery log names it (D42), from the stored one. */
export type LoggedDeliveryState = 'pending' | 'delivered' | 'failed' | 'abandoned';

export interface LoggedAttempt {
  at: Date;
  status: number | null;
  error: string | null;
  durationMs: number;
  /** the body sent */
  requestBody: string;
  /** the first bytes of the receiver's answer, as text; null when it gave none */
  responseBody: string | null;
}

export interface LoggedDelivery {
  id: string;
  event: WebhookDelivery['event'];
  date: string;
  state: LoggedDeliveryState;
  /** when it was recorded (a test delivery: when it was sent); the log's order */
  createdAt: Date;
  attempts: LoggedAttempt[];
}

/** Where a page of the log starts: after this delivery, in the log's order. */
export interface DeliveryLogPosition {
  createdAt: Date;
  id: string;
}

/** Which deliveries of the log to read: a page, or one delivery. */
export type DeliveryLogSelection = { after: DeliveryLogPosition | null; limit: number } | { deliveryId: string };

/**
 * A subscription's deliveries recorded since `since`, newest first, after `after`: publications'
 * (from their rows) and test deliveries (from their single attempt), each with its attempts oldest
 * first. A stored `failed` is the log's `failed` only after a redelivery by hand; otherwise the
 * retry schedule ran out, which the log calls `abandoned`.
 */
export async function listDeliveryLog(db: Kysely<Database>, subscriptionId: string, since: Date, selection: DeliveryLogSelection): Promise<LoggedDelivery[]> {
  const where =
    'deliveryId' in selection
      ? sql`id = ${selection.deliveryId}`
      : selection.after === null
        ? sql`true`
        : sql`(created_at, id) < (${selection.after.createdAt}, ${selection.after.id})`;
  // A test delivery's state is its latest attempt's outcome, as a redelivery by hand sets a publication's.
  const { rows } = await sql<{
    id: string;
    event: WebhookDelivery['event'];
    date: string;
    state: LoggedDeliveryState;
    created_at: Date;
    payload: string | null;
  }>`
    select * from (
      select id::text, event, rate_date::text as date,
        case when state = 'failed' and redelivered_at is null then 'abandoned' else state end as state, created_at, payload
      from webhook_deliveries where subscription_id = ${subscriptionId} and created_at >= ${since}
      union all
      select delivery_id::text, min(event), min(rate_date)::text,
        case (array_agg(outcome order by attempted_at desc, id desc))[1] when 'delivered' then 'delivered' else 'failed' end, min(attempted_at), null
      from webhook_attempts where subscription_id = ${subscriptionId} and event = 'rates.test'
      group by delivery_id having min(attempted_at) >= ${since}
    ) logged
    where ${where}
    order by created_at desc, id desc
    limit ${'deliveryId' in selection ? 1 : selection.limit}`.execute(db);
  if (rows.length === 0) return [];
  const attempts = await db
    .selectFrom('webhook_attempts')
    .select(['delivery_id', 'attempted_at', 'http_status', 'error', 'duration_ms', 'request_body', 'response_body'])
    .where(
      'delivery_id',
      'in',
      rows.map((r) => r.id),
    )
    .orderBy('attempted_at')
    .orderBy('id')
    .execute();
  const byDelivery = new Map<string, LoggedAttempt[]>(rows.map((r) => [r.id, []]));
  const payloads = new Map(rows.map((r) => [r.id, r.payload]));
  for (const a of attempts) {
    byDelivery.get(a.delivery_id)?.push({
      at: a.attempted_at,
      status: a.http_status,
      error: a.error,
      durationMs: a.duration_ms,
      requestBody: a.request_body ?? payloads.get(a.delivery_id) ?? '',
      responseBody: a.response_body,
    });
  }
  return rows.map((r) => ({ id: r.id, event: r.event, date: r.date, state: r.state, createdAt: new Date(r.created_at), attempts: byDelivery.get(r.id) ?? [] }));
}

/** A delivery of the log as a redelivery needs it: the body it sent. */
export type RedeliverableDelivery = Pick<WebhookDelivery, 'id' | 'event' | 'rate_date' | 'payload'>;

/**
 * A delivery of the subscription recorded since `since`: a publication's from its row, a test's
 * from its first attempt (a test sent before its body was kept has none, and is left out).
 */
export async function findRecentDelivery(
  db: Kysely<Database>,
  subscriptionId: string,
  deliveryId: string,
  since: Date,
): Promise<RedeliverableDelivery | undefined> {
  const publication = await db
    .selectFrom('webhook_deliveries')
    .select(['id', 'event', 'rate_date', 'payload'])
    .where('subscription_id', '=', subscriptionId)
    .where('id', '=', deliveryId)
    .where('created_at', '>=', since)
    .executeTakeFirst();
  if (publication) return publication;
  const test = await db
    .selectFrom('webhook_attempts')
    .select(['delivery_id', 'event', 'rate_date', 'request_body', 'attempted_at'])
    .where('subscription_id', '=', subscriptionId)
    .where('delivery_id', '=', deliveryId)
    .where('event', '=', 'rates.test')
    .orderBy('attempted_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  if (!test || test.request_body === null || test.attempted_at < since) return undefined;
  return { id: test.delivery_id, event: test.event, rate_date: test.rate_date, payload: test.request_body };
}

export interface RedeliveryRecord {
  deliveryId: string;
  event: WebhookDelivery['event'];
  subscriptionId: string;
  rateDate: string;
  ok: boolean;
  status: number | null;
  error: string | null;
  at: Date;
  durationMs: number;
  /** the body sent: kept on a test delivery's attempts, as a publication's is on its row */
  requestBody: string;
  responseBody: string | null;
}

/**
 * Stores a redelivery by hand (D42) as one more attempt of its delivery. A success delivers it; a
 * failure leaves a pending delivery's retries as planned and marks a finished one failed. A
 * success also counts as the subscription's last success and ends its run of failures, but never
 * reactivates it; a failure does not count towards deactivation, since the customer asked for it.
 * A test delivery (no row) only gains the attempt, and changes no counters, as a test never does.
 */
export async function recordRedelivery(db: Kysely<Database>, attempt: RedeliveryRecord): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // Subscription before delivery, as recordAttempts and deleteSubscription lock them.
    const subscription = await trx
      .selectFrom('webhook_subscriptions')
      .select('id')
      .where('id', '=', attempt.subscriptionId)
      .forNoKeyUpdate()
      .executeTakeFirst();
    if (!subscription) return;
    const before = await trx.selectFrom('webhook_deliveries').select(['state', 'attempts']).where('id', '=', attempt.deliveryId).forUpdate().executeTakeFirst();
    if (!before) {
      // The subscription's lock orders concurrent redeliveries of one test, so each numbers its own attempt.
      const { made } = await trx
        .selectFrom('webhook_attempts')
        .select((eb) => eb.fn.max('attempt').as('made'))
        .where('delivery_id', '=', attempt.deliveryId)
        .where('event', '=', 'rates.test')
        .executeTakeFirstOrThrow();
      if (made === null) return;
      await insertAttempts(trx, [attemptRow(attempt, made + 1, attempt.requestBody)]);
      return;
    }
    const stillPending = !attempt.ok && before.state === 'pending';
    const changes = await changeDelivery(
      trx,
      attempt.deliveryId,
      {
        last_status: attempt.status,
        last_error: attempt.error,
        redelivered_at: attempt.at,
        ...(!stillPending && { state: attempt.ok ? 'delivered' : 'failed', leased_until: null, finished_at: attempt.at }),
      },
      true,
    );
    await changeDeliveryCounts(trx, changes);
    if (attempt.ok) {
      await trx.updateTable('webhook_subscriptions').set({ failure_count: 0, last_success_at: attempt.at }).where('id', '=', attempt.subscriptionId).execute();
    }
    await insertAttempts(trx, [attemptRow(attempt, before.attempts + 1, null)]);
  });
}

export function attemptRow(attempt: RedeliveryRecord, number: number, requestBody: string | null): Insertable<WebhookAttemptsTable> {
  return {
    delivery_id: attempt.deliveryId,
    subscription_id: attempt.subscriptionId,
    event: attempt.event,
    rate_date: attempt.rateDate,
    attempt: number,
    attempted_at: attempt.at,
    duration_ms: attempt.durationMs,
    http_status: attempt.status,
    error: attempt.error,
    outcome: attempt.ok ? 'delivered' : 'failed',
    request_body: requestBody,
    response_body: attempt.responseBody,
  };
}
