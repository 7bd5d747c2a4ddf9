// Migration 0010 fills its roll-ups from what an upgraded database already holds: deliveries per
// rate day and state with their attempts, and publication attempts per rate day and duration (test
// deliveries' attempts left out); down drops them.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { emptyDatabaseForFile } from '../support/db.js';

const database = emptyDatabaseForFile();

const rows = async (statement: ReturnType<typeof sql>) => (await statement.execute(database.db)).rows;

describe('migration 0010_webhook_rollups', () => {
  it('counts the stored deliveries per rate day and state, and publication attempts per rate day and duration', async () => {
    await database.migrateTo('0009_account_usage_rollups');
    const { id: publication } = await database.db
      .insertInto('publications')
      .values({ source: 'test', format: 'csv', first_date: '2025-12-30', last_date: '2026-01-02', days: 2, inserted: 2, updated: 0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const { id: account } = await database.db
      .insertInto('accounts')
      .values({ email: 'a@example.test', plan: 'business' })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const id of ['a'.repeat(32), 'b'.repeat(32)]) {
      await database.db
        .insertInto('webhook_subscriptions')
        .values({ id, account_id: account, url: 'https://hooks.example.test/', secret_ciphertext: 's' })
        .execute();
    }
    const deliveries = [
      // subscription, rate date, state, attempts
      ['a', '2025-12-30', 'delivered', 1],
      ['b', '2025-12-30', 'delivered', 3],
      ['a', '2026-01-02', 'failed', 6],
      ['b', '2026-01-02', 'pending', 2],
    ] as const;
    const deliveryIds: string[] = [];
    for (const [subscription, rate_date, state, attempts] of deliveries) {
      const { id } = await database.db
        .insertInto('webhook_deliveries')
        .values({
          id: sql`gen_random_uuid()`,
          subscription_id: subscription.repeat(32),
          event: 'rates.published',
          rate_date,
          publication_id: publication,
          payload: '{}',
          state,
          attempts,
          next_attempt_at: new Date(),
          created_at: new Date(),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      deliveryIds.push(id);
    }
    const attempts = [
      // delivery, event, duration
      [0, 'rates.published', 120],
      [1, 'rates.published', 120],
      [1, 'rates.published', 80],
      [2, 'rates.published', 80],
      [2, 'rates.test', 80],
    ] as const;
    for (const [delivery, event, duration_ms] of attempts) {
      const [subscription, rate_date] = deliveries[delivery];
      await database.db
        .insertInto('webhook_attempts')
        .values({
          delivery_id: deliveryIds[delivery],
          subscription_id: subscription.repeat(32),
          event,
          rate_date,
          attempt: 1,
          attempted_at: new Date(),
          duration_ms,
          outcome: 'delivered',
        })
        .execute();
    }

    await database.migrateTo('0010_webhook_rollups');
    expect(await rows(sql`SELECT rate_date::text, state, deliveries, attempts FROM webhook_deliveries_daily ORDER BY 1, 2`)).toEqual([
      { rate_date: '2025-12-30', state: 'delivered', deliveries: 2, attempts: 4 },
      { rate_date: '2026-01-02', state: 'failed', deliveries: 1, attempts: 6 },
      { rate_date: '2026-01-02', state: 'pending', deliveries: 1, attempts: 2 },
    ]);
    expect(await rows(sql`SELECT rate_date::text, duration_ms, attempts FROM webhook_attempt_durations ORDER BY 1, 2`)).toEqual([
      { rate_date: '2025-12-30', duration_ms: 80, attempts: 1 },
      { rate_date: '2025-12-30', duration_ms: 120, attempts: 2 },
      { rate_date: '2026-01-02', duration_ms: 80, attempts: 1 },
    ]);
  });

  it('down drops the roll-ups and leaves the deliveries and attempts', async () => {
    await database.migrateTo('0009_account_usage_rollups');
    const { rows: tables } = await sql<{ table_name: string }>`
      select table_name from information_schema.tables
      where table_schema = 'public' and table_name in ('webhook_deliveries_daily', 'webhook_attempt_durations')`.execute(database.db);
    expect(tables).toEqual([]);
    expect(await rows(sql`SELECT count(*)::int AS n FROM webhook_deliveries`)).toEqual([{ n: 4 }]);
    expect(await rows(sql`SELECT count(*)::int AS n FROM webhook_attempts`)).toEqual([{ n: 5 }]);
  });
});
