// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

/**
 * Two roll-ups for webhookHealth over a range of rate days, so that it does not read every delivery
 * and attempt of the range: deliveries (each a publication's: a test delivery has no row) per rate
 * day and state, with their attempts; and publication attempts per rate day and duration (whole
 * milliseconds, as recorded), which give the latency percentiles exactly. Kept in step, in the same
 * statement or transaction, wherever a delivery or attempt is recorded, changes state or is deleted
 * (src/db/webhooks.ts). Both filled here from what is stored.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_deliveries_daily')
    .addColumn('rate_date', 'date', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('deliveries', 'integer', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_deliveries_daily_pkey', ['rate_date', 'state'])
    .execute();
  await sql`
    insert into webhook_deliveries_daily (rate_date, state, deliveries, attempts)
    select rate_date, state, count(*), sum(attempts) from webhook_deliveries group by rate_date, state`.execute(db);

  await db.schema
    .createTable('webhook_attempt_durations')
    .addColumn('rate_date', 'date', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_attempt_durations_pkey', ['rate_date', 'duration_ms'])
    .execute();
  await sql`
    insert into webhook_attempt_durations (rate_date, duration_ms, attempts)
    select rate_date, duration_ms, count(*) from webhook_attempts
    where event = 'rates.published' group by rate_date, duration_ms`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_attempt_durations').execute();
  await db.schema.dropTable('webhook_deliveries_daily').execute();
}
