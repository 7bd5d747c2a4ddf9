// Repository for webhook subscriptions and their deliveries. Plain functions taking `db` or `trx`.
import { randomUUID } from 'node:crypto';
import { sql, type Insertable, type Kysely, type RawBuilder, type Updateable } from 'kysely';
import type { Plan } from '../domain/plans.js';
import type {
  Database,
  WebhookAttemptsTable,
  WebhookDeliveriesDailyTable,
  WebhookDeliveriesTable,
  WebhookDelivery,
  WebhookSubscription,
  WebhookSubscriptionsTable,
} from './database.js';

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

/** A change to `webhook_deliveries_daily`: deliveries and attempts to add to a rate day's state (negative to take off). */
type DeliveryCountChange = WebhookDeliveriesDailyTable;

/** What deleting these deliveries takes off the roll-up: the publications' among them. */
function publicationCountChanges(deleted: readonly Pick<WebhookDelivery, 'event' | 'rate_date' | 'state' | 'attempts'>[]): DeliveryCountChange[] {
  return deleted.flatMap((d) => (d.event === 'rates.published' ? [{ rate_date: d.rate_date, state: d.state, deliveries: -1, attempts: -d.attempts }] : []));
}

/**
 * Adds changes to the deliveries' roll-up, summed per row and in the order of its key, so that two
 * transactions writing the same rows take their locks in the same order (and never deadlock there).
 */
async function changeDeliveryCounts(trx: Kysely<Database>, changes: readonly DeliveryCountChange[]): Promise<void> {
  const sums = new Map<string, DeliveryCountChange>();
  for (const change of changes) {
    const key = `${change.rate_date} ${change.state}`;
    const sum = sums.get(key);
    if (sum) {
      sum.deliveries += change.deliveries;
      sum.attempts += change.attempts;
    } else sums.set(key, { ...change });
  }
  const rows = [...sums.entries()]
    .filter(([, sum]) => sum.deliveries !== 0 || sum.attempts !== 0)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([, sum]) => sum);
  if (rows.length === 0) return;
  await trx
    .insertInto('webhook_deliveries_daily')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['rate_date', 'state']).doUpdateSet({
        deliveries: sql`webhook_deliveries_daily.deliveries + excluded.deliveries`,
        attempts: sql`webhook_deliveries_daily.attempts + excluded.attempts`,
      }),
    )
    .execute();
}

/**
 * Sets a delivery's outcome (one attempt more, when `attempted`), and gives the roll-up's changes:
 * the row is read locked in the same statement, so its state before is the one this changed.
 */
async function changeDelivery(
  trx: Kysely<Database>,
  id: string,
  outcome: Updateable<WebhookDeliveriesTable>,
  attempted: boolean,
): Promise<DeliveryCountChange[]> {
  const changed = await trx
    .updateTable('webhook_deliveries')
    .from((eb) => eb.selectFrom('webhook_deliveries').select(['id', 'state', 'attempts']).where('id', '=', id).forUpdate().as('before'))
    .set((eb) => ({ ...outcome, ...(attempted && { attempts: eb('webhook_deliveries.attempts', '+', 1) }) }))
    .whereRef('webhook_deliveries.id', '=', 'before.id')
    .returning([
      'webhook_deliveries.event',
      'webhook_deliveries.rate_date',
      'webhook_deliveries.state',
      'webhook_deliveries.attempts',
      'before.state as state_before',
      'before.attempts as attempts_before',
    ])
    .executeTakeFirst();
  // the roll-up counts publications' deliveries only (an alert's is not one)
  if (!changed || changed.event !== 'rates.published') return [];
  return [
    { rate_date: changed.rate_date, state: changed.state_before, deliveries: -1, attempts: -changed.attempts_before },
    { rate_date: changed.rate_date, state: changed.state, deliveries: 1, attempts: changed.attempts },
  ];
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

/**
 * Adds the publication attempts among `changed_attempts` (a WITH of the statement's inserted or
 * deleted rows: event, rate_date, duration_ms) to their durations' roll-up, `sign` -1 to take them
 * off, in the order of its key as changeDeliveryCounts does; returns each row's rate day and count.
 */
const changeAttemptDurations = (sign: 1 | -1) => sql`
  insert into webhook_attempt_durations (rate_date, duration_ms, attempts)
  select rate_date, duration_ms, ${sign} * count(*) from changed_attempts where event = 'rates.published'
  group by rate_date, duration_ms order by rate_date, duration_ms
  on conflict (rate_date, duration_ms) do update set attempts = webhook_attempt_durations.attempts + excluded.attempts
  returning rate_date, attempts`;

/**
 * Records attempts as they were made: the worker's batches, and test deliveries one at a time. An
 * attempt whose subscription was deleted meanwhile is left out rather than failing the batch.
 */
export async function insertAttempts(db: Kysely<Database>, rows: readonly Insertable<WebhookAttemptsTable>[]): Promise<void> {
  if (rows.length === 0) return;
  await sql`
    with changed_attempts as (
      insert into webhook_attempts (
        delivery_id, subscription_id, event, rate_date, attempt, attempted_at, duration_ms, http_status, error, outcome, request_body, response_body)
      select v.delivery_id, v.subscription_id, v.event, v.rate_date, v.attempt, v.attempted_at, v.duration_ms, v.http_status, v.error, v.outcome,
        v.request_body, v.response_body
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(
        delivery_id uuid, subscription_id text, event text, rate_date date, attempt smallint, attempted_at timestamptz,
        duration_ms integer, http_status smallint, error text, outcome text, request_body text, response_body text)
      where exists (select 1 from webhook_subscriptions s where s.id = v.subscription_id)
      returning event, rate_date, duration_ms)
    ${changeAttemptDurations(1)}`.execute(db);
}

/**
 * Deletes the attempts `where` picks and takes them off the durations' roll-up, dropping the rows
 * left at zero; resolves with how many attempts went.
 */
async function deleteAttempts(trx: Kysely<Database>, where: RawBuilder<boolean>): Promise<number> {
  const { rows } = await sql<{ deleted: number; emptied_through: string | null }>`
    with changed_attempts as (delete from webhook_attempts where ${where} returning event, rate_date, duration_ms),
    lowered as (${changeAttemptDurations(-1)})
    select (select count(*) from changed_attempts)::int as deleted, (select max(rate_date) from lowered where attempts = 0) as emptied_through`.execute(trx);
  const { deleted, emptied_through: emptiedThrough } = rows[0]!;
  // A row at zero counts nothing and may go. Those up to the newest rate day emptied are read
  // through the key: for a prune, the oldest days, the ones it empties.
  if (emptiedThrough !== null) await trx.deleteFrom('webhook_attempt_durations').where('rate_date', '<=', emptiedThrough).where('attempts', '=', 0).execute();
  return deleted;
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

function attemptRow(attempt: RedeliveryRecord, number: number, requestBody: string | null): Insertable<WebhookAttemptsTable> {
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
