// Repository for rate alerts, their firings and the firings' e-mails. Plain functions taking `db` or `trx`.
import { randomUUID } from 'node:crypto';
import { sql, type Insertable, type Kysely, type SelectQueryBuilder } from 'kysely';
import { alertFires } from '../domain/alerts.js';
import type { Plan } from '../domain/plans.js';
import type { CurrencyCode } from '../domain/currencies.js';
import type { AlertChannel, AlertCondition, AlertsTable, Database } from './database.js';
import { recordAlertDeliveries } from './webhook-deliveries.js';

/** An alert as listed: its own fields, and its firings' count and latest. */
export interface ListedAlert {
  id: string;
  currency: CurrencyCode;
  condition: AlertCondition;
  value: string;
  channels: AlertChannel[];
  description: string | null;
  isActive: boolean;
  createdAt: Date;
  lastTriggeredAt: Date | null;
  triggerCount: number;
}

/** Alerts as they are listed: their columns, their last firing and how many times they fired. */
export function listed(db: Kysely<Database>): SelectQueryBuilder<Database, 'alerts', ListedAlert> {
  return db
    .selectFrom('alerts')
    .select([
      'alerts.id',
      'alerts.currency',
      'alerts.condition',
      sql<string>`alerts.value::text`.as('value'),
      'alerts.channels',
      'alerts.description',
      'alerts.is_active as isActive',
      'alerts.created_at as createdAt',
      sql<Date | null>`(select max(f.fired_at) from alert_firings f where f.alert_id = alerts.id)`.as('lastTriggeredAt'),
      sql<number>`(select count(*) from alert_firings f where f.alert_id = alerts.id)::int`.as('triggerCount'),
    ]);
}

export async function insertAlert(db: Kysely<Database>, row: Insertable<AlertsTable>): Promise<ListedAlert> {
  await db.insertInto('alerts').values(row).execute();
  return (await findAlert(db, row.account_id, row.id))!;
}

export async function countAlerts(db: Kysely<Database>, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('alerts')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function findAlert(db: Kysely<Database>, accountId: string, id: string): Promise<ListedAlert | undefined> {
  return listed(db).where('alerts.account_id', '=', accountId).where('alerts.id', '=', id).executeTakeFirst();
}

export async function setAlertActive(db: Kysely<Database>, accountId: string, id: string, active: boolean): Promise<ListedAlert | undefined> {
  const updated = await db.updateTable('alerts').set({ is_active: active }).where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  return updated.numUpdatedRows > 0n ? findAlert(db, accountId, id) : undefined;
}

/** Removes the alert with its firings and their unsent e-mails; false when the account has no such alert. */
export async function deleteAlert(db: Kysely<Database>, accountId: string, id: string): Promise<boolean> {
  const deleted = await db.deleteFrom('alerts').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  return deleted.numDeletedRows > 0n;
}

/** What an e-mailed pause link shows and pauses, whoever follows it. */
export interface PausableAlert {
  id: string;
  currency: string;
  condition: AlertCondition;
  value: string;
  isActive: boolean;
}

export async function findPausableAlert(db: Kysely<Database>, id: string): Promise<PausableAlert | undefined> {
  return db
    .selectFrom('alerts')
    .select(['id', 'currency', 'condition', sql<string>`value::text`.as('value'), 'is_active as isActive'])
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function pauseAlert(db: Kysely<Database>, id: string): Promise<PausableAlert | undefined> {
  await db.updateTable('alerts').set({ is_active: false }).where('id', '=', id).execute();
  return findPausableAlert(db, id);
}

/** A recorded firing, as the dashboard's history and the e-mail tell it. */
export interface FiringRecord {
  alertId: string;
  currency: string;
  condition: AlertCondition;
  level: string;
  date: string;
  value: string;
  previousDate: string;
  previousValue: string;
  firedAt: Date;
}

/** The account's latest firings, newest first. */
export async function listRecentFirings(db: Kysely<Database>, accountId: string, limit: number): Promise<FiringRecord[]> {
  return db
    .selectFrom('alert_firings as f')
    .innerJoin('alerts as a', 'a.id', 'f.alert_id')
    .select([
      'f.alert_id as alertId',
      'a.currency',
      'a.condition',
      sql<string>`a.value::text`.as('level'),
      'f.rate_date as date',
      sql<string>`f.value::text`.as('value'),
      'f.previous_date as previousDate',
      sql<string>`f.previous_value::text`.as('previousValue'),
      'f.fired_at as firedAt',
    ])
    .where('a.account_id', '=', accountId)
    .orderBy('f.fired_at', 'desc')
    .orderBy('f.id', 'desc')
    .limit(limit)
    .execute();
}

/** A publication's newest day, as alerts are checked against it. */
export interface AlertPublication {
  publicationId: number;
  date: string;
  /** the day's values, exact decimal text per code */
  rates: Readonly<Record<string, string>>;
  recordedAt: Date;
}

/** A firing this publication recorded, with what its channels need. */
export interface NewFiring {
  firingId: number;
  alertId: string;
  currency: string;
  condition: AlertCondition;
  level: string;
  date: string;
  value: string;
  previousDate: string;
  previousValue: string;
}

export interface AlertPlans {
  /** plans whose accounts' alerts are checked */
  alerts: readonly Plan[];
  /** plans whose accounts receive webhook deliveries */
  webhooks: readonly Plan[];
}

/**
 * Checks every active alert of an active account on a plan with alerts against a publication's
 * newest day and the previous rate day of each code, and records what fires with its e-mails
 * (the outbox) and its `rates.alert` deliveries. Runs inside the transaction that stores the day,
 * so a firing commits with the rates or not at all; the unique (alert, rate day) makes a second
 * recording of the same day fire nothing.
 */
export async function recordAlertFirings(
  trx: Kysely<Database>,
  day: AlertPublication,
  plans: AlertPlans,
  payloadOf: (deliveryId: string, firing: NewFiring) => string,
): Promise<NewFiring[]> {
  const codes = Object.keys(day.rates);
  if (codes.length === 0 || plans.alerts.length === 0) return [];
  const { rows: previous } = await sql<{ code: CurrencyCode; date: string; value: string }>`
    select c.code, p.date, p.value::text as value
    from unnest(${codes}::text[]) as c(code)
    cross join lateral (select r.date, r.value from rates r where r.code = c.code and r.date < ${day.date} order by r.date desc limit 1) p`.execute(trx);
  if (previous.length === 0) return [];
  const before = new Map(previous.map((p) => [p.code, p]));
  const candidates = await trx
    .selectFrom('alerts as a')
    .innerJoin('accounts as acc', 'acc.id', 'a.account_id')
    .select(['a.id', 'a.account_id', 'a.currency', 'a.condition', sql<string>`a.value::text`.as('level'), 'a.channels', 'acc.plan'])
    .where('a.is_active', '=', true)
    .where('acc.status', '=', 'active')
    .where('acc.plan', 'in', plans.alerts as Plan[])
    .where(
      'a.currency',
      'in',
      previous.map((p) => p.code),
    )
    .orderBy('a.id')
    // as recordPublicationDeliveries reads subscriptions: an alert being deleted meanwhile is waited
    // for and left out, since a firing of it would fail the whole publication on its foreign key
    .forKeyShare('a')
    .execute();
  const firing = candidates.filter((a) => alertFires(a.condition, a.level, day.rates[a.currency]!, before.get(a.currency)!.value));
  if (firing.length === 0) return [];

  const fired: NewFiring[] = [];
  const byId = new Map(firing.map((a) => [a.id, a]));
  for (let i = 0; i < firing.length; i += 1000) {
    const inserted = await trx
      .insertInto('alert_firings')
      .values(
        firing.slice(i, i + 1000).map((a) => ({
          alert_id: a.id,
          rate_date: day.date,
          value: day.rates[a.currency]!,
          previous_date: before.get(a.currency)!.date,
          previous_value: before.get(a.currency)!.value,
          publication_id: day.publicationId,
          fired_at: day.recordedAt,
        })),
      )
      .onConflict((oc) => oc.constraint('alert_firings_once').doNothing())
      .returning(['id', 'alert_id'])
      .execute();
    for (const row of inserted) {
      const alert = byId.get(row.alert_id)!;
      const prior = before.get(alert.currency)!;
      fired.push({
        firingId: row.id,
        alertId: alert.id,
        currency: alert.currency,
        condition: alert.condition,
        level: alert.level,
        date: day.date,
        value: day.rates[alert.currency]!,
        previousDate: prior.date,
        previousValue: prior.value,
      });
    }
  }

  const emailed = fired.filter((f) => byId.get(f.alertId)!.channels.includes('email'));
  for (let i = 0; i < emailed.length; i += 1000) {
    await trx
      .insertInto('alert_emails')
      .values(emailed.slice(i, i + 1000).map((f) => ({ firing_id: f.firingId, next_attempt_at: day.recordedAt })))
      .execute();
  }

  const hooked = fired.filter((f) => {
    const alert = byId.get(f.alertId)!;
    return alert.channels.includes('webhook') && plans.webhooks.includes(alert.plan);
  });
  if (hooked.length > 0) {
    const accounts = [...new Set(hooked.map((f) => byId.get(f.alertId)!.account_id))];
    const subscriptions = await trx
      .selectFrom('webhook_subscriptions')
      .select(['id', 'account_id', 'currencies'])
      .where('is_active', '=', true)
      .where('account_id', 'in', accounts)
      .orderBy('id')
      // as recordPublicationDeliveries reads them: one being deleted meanwhile is left out
      .forKeyShare()
      .execute();
    const deliveries = hooked.flatMap((f) =>
      subscriptions
        .filter((s) => s.account_id === byId.get(f.alertId)!.account_id && (s.currencies === null || s.currencies.includes(f.currency)))
        .map((s) => {
          const id = randomUUID();
          return {
            id,
            subscription_id: s.id,
            event: 'rates.alert' as const,
            rate_date: day.date,
            alert_id: f.alertId,
            publication_id: day.publicationId,
            payload: payloadOf(id, f),
            next_attempt_at: day.recordedAt,
            created_at: day.recordedAt,
          };
        }),
    );
    await recordAlertDeliveries(trx, deliveries);
  }
  return fired;
}

/** An e-mail of a firing claimed for sending, with what its message says. */
export interface ClaimedAlertEmail {
  firingId: number;
  attempts: number;
  to: string;
  /** the account is still active: else the e-mail is not sent */
  deliverable: boolean;
  firing: NewFiring;
}

/**
 * Leases up to `limit` due e-mails to this process until `leasedUntil` (SKIP LOCKED, as webhook
 * deliveries are claimed): one whose process died while sending is due again when its lease ends.
 */
export async function claimDueAlertEmails(db: Kysely<Database>, now: Date, leasedUntil: Date, limit: number): Promise<ClaimedAlertEmail[]> {
  const { rows } = await sql<{
    firing_id: number;
    attempts: number;
    email: string;
    deliverable: boolean;
    alert_id: string;
    currency: string;
    condition: AlertCondition;
    level: string;
    rate_date: string;
    value: string;
    previous_date: string;
    previous_value: string;
  }>`
    with due as (
      select firing_id from alert_emails
      where state = 'pending' and next_attempt_at <= ${now} and (leased_until is null or leased_until <= ${now})
      order by next_attempt_at
      limit ${limit}
      for update skip locked
    )
    update alert_emails e set leased_until = ${leasedUntil}
    from due, alert_firings f, alerts a, accounts acc
    where e.firing_id = due.firing_id and f.id = e.firing_id and a.id = f.alert_id and acc.id = a.account_id
    returning e.firing_id, e.attempts, acc.email, acc.status = 'active' as deliverable, a.id as alert_id, a.currency, a.condition,
      a.value::text as level, f.rate_date, f.value::text as value, f.previous_date, f.previous_value::text as previous_value`.execute(db);
  return rows.map((r) => ({
    firingId: Number(r.firing_id),
    attempts: r.attempts,
    to: r.email,
    deliverable: r.deliverable,
    firing: {
      firingId: Number(r.firing_id),
      alertId: r.alert_id,
      currency: r.currency,
      condition: r.condition,
      level: r.level,
      date: r.rate_date,
      value: r.value,
      previousDate: r.previous_date,
      previousValue: r.previous_value,
    },
  }));
}

export interface AlertEmailOutcome {
  firingId: number;
  /** sent; or not sent, with `error` and when to try again (null: no more) */
  state: 'sent' | 'pending' | 'failed' | 'abandoned';
  error: string | null;
  at: Date;
  retryAt: Date | null;
}

export async function recordAlertEmail(db: Kysely<Database>, outcome: AlertEmailOutcome): Promise<void> {
  await db
    .updateTable('alert_emails')
    .set((eb) => ({
      state: outcome.state,
      attempts: outcome.state === 'abandoned' ? eb.ref('attempts') : eb('attempts', '+', 1),
      leased_until: null,
      last_error: outcome.error,
      next_attempt_at: outcome.retryAt ?? outcome.at,
      ...(outcome.state === 'sent' && { sent_at: outcome.at }),
    }))
    .where('firing_id', '=', outcome.firingId)
    .execute();
}
