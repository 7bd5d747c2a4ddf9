// The deliveries' and attempts' roll-ups (webhook_deliveries_daily, webhook_attempt_durations), kept
// in the same transaction as every change to the rows they count. Used by the other webhook repositories only.
import { sql, type Insertable, type Kysely, type RawBuilder, type Updateable } from 'kysely';
import type { Database, WebhookAttemptsTable, WebhookDeliveriesDailyTable, WebhookDeliveriesTable, WebhookDelivery } from './database.js';

/** A change to `webhook_deliveries_daily`: deliveries and attempts to add to a rate day's state (negative to take off). */
export type DeliveryCountChange = WebhookDeliveriesDailyTable;

/** What deleting these deliveries takes off the roll-up: the publications' among them. */
export function publicationCountChanges(deleted: readonly Pick<WebhookDelivery, 'event' | 'rate_date' | 'state' | 'attempts'>[]): DeliveryCountChange[] {
  return deleted.flatMap((d) => (d.event === 'rates.published' ? [{ rate_date: d.rate_date, state: d.state, deliveries: -1, attempts: -d.attempts }] : []));
}

/**
 * Adds changes to the deliveries' roll-up, summed per row and in the order of its key, so that two
 * transactions writing the same rows take their locks in the same order (and never deadlock there).
 */
export async function changeDeliveryCounts(trx: Kysely<Database>, changes: readonly DeliveryCountChange[]): Promise<void> {
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
export async function changeDelivery(
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
/**
 * Adds the publication attempts among `changed_attempts` (a WITH of the statement's inserted or
 * deleted rows: event, rate_date, duration_ms) to their durations' roll-up, `sign` -1 to take them
 * off, in the order of its key as changeDeliveryCounts does; returns each row's rate day and count.
 */
export const changeAttemptDurations = (sign: 1 | -1) => sql`
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
export async function deleteAttempts(trx: Kysely<Database>, where: RawBuilder<boolean>): Promise<number> {
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
