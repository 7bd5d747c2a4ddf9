// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

/**
 * Rate alerts (docs/api.md, "Rate alerts"): an account's conditions on one code; a firing per alert
 * and rate day (unique, so a publication fires an alert once however many processes store it);
 * the e-mails of firings as an outbox written with them and sent by a job; and alert deliveries
 * among webhook deliveries, one per subscription, alert and rate day (a publication's keep their
 * own uniqueness: no alert, NULLS NOT DISTINCT).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('alerts')
    .addColumn('id', 'text', (c) => c.primaryKey()) // 32 lower-case hex, as subscriptions'
    .addColumn('account_id', 'uuid', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('condition', 'text', (c) => c.notNull().check(sql`condition in ('above', 'below', 'change_pct')`))
    // exact, as given: a rate level or a percentage
    .addColumn('value', 'numeric', (c) => c.notNull())
    .addColumn('channels', sql`text[]`, (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('is_active', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('alerts_account').on('alerts').columns(['account_id', 'created_at']).execute();
  await sql`create index alerts_active_currency on alerts (currency) where is_active`.execute(db);

  await db.schema
    .createTable('alert_firings')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('alert_id', 'text', (c) => c.notNull().references('alerts.id').onDelete('cascade'))
    .addColumn('rate_date', 'date', (c) => c.notNull())
    .addColumn('value', 'numeric', (c) => c.notNull())
    .addColumn('previous_date', 'date', (c) => c.notNull())
    .addColumn('previous_value', 'numeric', (c) => c.notNull())
    .addColumn('publication_id', 'integer', (c) => c.notNull().references('publications.id'))
    .addColumn('fired_at', 'timestamptz', (c) => c.notNull())
    .addUniqueConstraint('alert_firings_once', ['alert_id', 'rate_date'])
    .execute();
  // the operators' analytics count firings by rate day
  await db.schema.createIndex('alert_firings_rate_date').on('alert_firings').column('rate_date').execute();

  // The outbox: one row per e-mailed firing, written in the transaction that records the firing.
  await db.schema
    .createTable('alert_emails')
    .addColumn('firing_id', 'bigint', (c) => c.primaryKey().references('alert_firings.id').onDelete('cascade'))
    .addColumn('state', 'text', (c) =>
      c
        .notNull()
        .defaultTo('pending')
        .check(sql`state in ('pending', 'sent', 'failed', 'abandoned')`),
    )
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'timestamptz', (c) => c.notNull())
    .addColumn('leased_until', 'timestamptz')
    .addColumn('last_error', 'text')
    .addColumn('sent_at', 'timestamptz')
    .execute();
  await sql`create index alert_emails_due on alert_emails (next_attempt_at) where state = 'pending'`.execute(db);

  await sql`alter table webhook_deliveries add column alert_id text`.execute(db);
  await sql`alter table webhook_deliveries drop constraint webhook_deliveries_once`.execute(db);
  await sql`alter table webhook_deliveries add constraint webhook_deliveries_once unique nulls not distinct (subscription_id, event, rate_date, alert_id)`.execute(
    db,
  );
  await sql`alter table webhook_attempts drop constraint webhook_attempts_event_check`.execute(db);
  await sql`alter table webhook_attempts add constraint webhook_attempts_event_check check (event in ('rates.published', 'rates.test', 'rates.alert'))`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from webhook_attempts where event = 'rates.alert'`.execute(db);
  await sql`alter table webhook_attempts drop constraint webhook_attempts_event_check`.execute(db);
  await sql`alter table webhook_attempts add constraint webhook_attempts_event_check check (event in ('rates.published', 'rates.test'))`.execute(db);
  // Alert deliveries go with the alerts (the deliveries' roll-up never counted them).
  await sql`delete from webhook_deliveries where event = 'rates.alert'`.execute(db);
  await sql`alter table webhook_deliveries drop constraint webhook_deliveries_once`.execute(db);
  await sql`alter table webhook_deliveries add constraint webhook_deliveries_once unique (subscription_id, event, rate_date)`.execute(db);
  await sql`alter table webhook_deliveries drop column alert_id`.execute(db);
  await db.schema.dropTable('alert_emails').execute();
  await db.schema.dropTable('alert_firings').execute();
  await db.schema.dropTable('alerts').execute();
}
