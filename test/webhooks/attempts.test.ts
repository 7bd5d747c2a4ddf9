// Every delivery attempt is recorded (docs/api.md §4.2; D28 in docs/decisions.md): one row per
// attempt, written with the delivery's outcome, test deliveries marked as `rates.test`; rows past the
// 90-day retention are pruned by the worker; an attempt of a subscription deleted meanwhile is left
// out without losing the rest of its batch.
import { describe, expect, it } from 'vitest';
import { listRecentAttempts } from '../../src/db/delivery-log.js';
import { recordAttempts } from '../../src/db/webhook-deliveries.js';
import type { RbaDay } from '../../src/rba/index.js';
import { OPENSSL_AVAILABLE } from '../support/certificate.js';
import { expectInstant } from '../support/expect.js';
import { deliveryScenario, evening, plus, useWebhookReceiver } from '../support/webhook-receiver.js';

const day = (date: string): RbaDay => ({ date, rates: { USD: '0.6543', EUR: '0.6012', TWI: '61.40' } });
const DAY_MS = 24 * 3_600_000;

describe.skipIf(!OPENSSL_AVAILABLE)('webhook attempts', () => {
  const { receiver, startApp } = useWebhookReceiver();

  async function setUp(firstDate: string) {
    const { app, key, subscribe, publish, runAt } = await deliveryScenario(receiver, startApp, { firstDate, plan: 'professional', dayOf: day });
    const attempts = (subscriptionId: string) =>
      app.db.selectFrom('webhook_attempts').selectAll().where('subscription_id', '=', subscriptionId).orderBy('id').execute();
    return { app, key, subscribe, publish, runAt, attempts };
  }

  it('records each attempt of a retried delivery with its number, status, error, duration and outcome, and the next retry of the latest', async () => {
    const { app, subscribe, publish, runAt, attempts } = await setUp('2026-05-12');
    const id = await subscribe('/flaky');
    receiver.behave('/flaky', { status: 503 }, { status: 204 });
    await publish('2026-05-13');
    const t0 = evening('2026-05-13');
    await runAt(t0);

    const delivery = await app.db.selectFrom('webhook_deliveries').select(['id']).where('subscription_id', '=', id).executeTakeFirstOrThrow();
    let rows = await attempts(id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      delivery_id: delivery.id,
      event: 'rates.published',
      rate_date: '2026-05-13',
      attempt: 1,
      http_status: 503,
      outcome: 'failed',
    });
    expect(rows[0]!.error).toMatch(/503/);
    expect(rows[0]!.duration_ms).toBeGreaterThanOrEqual(0);
    expect(rows[0]!.duration_ms).toBeLessThan(2_000);
    expectInstant(rows[0]!.attempted_at.toISOString(), t0);

    // the latest attempt of a pending delivery carries its next retry
    let recent = await listRecentAttempts(app.db, id, 50);
    expect(recent).toHaveLength(1);
    expect(recent[0]!.nextAttemptAt?.toISOString()).toBe(plus(t0, 60_000));

    await runAt(plus(t0, 60_000));
    rows = await attempts(id);
    expect(rows.map((r) => [r.attempt, r.http_status, r.outcome, r.error])).toEqual([
      [1, 503, 'failed', rows[0]!.error],
      [2, 204, 'delivered', null],
    ]);
    recent = await listRecentAttempts(app.db, id, 50);
    expect(recent.map((r) => [r.attempt, r.nextAttemptAt])).toEqual([
      [2, null],
      [1, null],
    ]);
  });

  it('records a receiver that cannot be reached as a failed attempt with no status', async () => {
    const { subscribe, publish, runAt, attempts } = await setUp('2026-05-12');
    const id = await subscribe('/hangs');
    receiver.behave('/hangs', 'hang');
    await publish('2026-05-13');
    await runAt(evening('2026-05-13'));
    const [row] = await attempts(id);
    expect(row).toMatchObject({ attempt: 1, http_status: null, outcome: 'failed' });
    expect(row!.error).toMatch(/time|answer/i);
    expect(row!.duration_ms).toBeGreaterThanOrEqual(1_900);
  });

  it('records a test delivery as event rates.test with its own delivery id', async () => {
    const { app, key, subscribe, attempts } = await setUp('2026-05-12');
    const id = await subscribe('/test');
    const res = await app.json(`/api/webhook-subscriptions/${id}/test`, { key, method: 'POST' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const rows = await attempts(id);
    expect(rows).toHaveLength(1);
    const sent = receiver.deliveries.at(-1)!;
    expect(rows[0]).toMatchObject({
      delivery_id: sent.headers['x-exchangerates-delivery'],
      event: 'rates.test',
      rate_date: '2026-05-12',
      attempt: 1,
      http_status: 200,
      error: null,
      outcome: 'delivered',
    });
    // no delivery row: the test is not a publication
    expect(await app.db.selectFrom('webhook_deliveries').select('id').where('subscription_id', '=', id).execute()).toEqual([]);
  });

  // Two processes' batches can hold the same subscriptions in opposite orders, and deleting a
  // subscription locks it before its deliveries: recording locks a batch's subscriptions first, in
  // one order, so none of these waits in a cycle. Only a server runs two transactions at once.
  it.skipIf(!process.env.DATABASE_URL)('batches over the same subscriptions in opposite orders, recorded at once, never deadlock', async () => {
    const { app, subscribe, publish, attempts } = await setUp('2026-05-12');
    const [first, second] = [await subscribe('/first'), await subscribe('/second')];
    await publish('2026-05-13');
    await publish('2026-05-14');
    const deliveries = await app.db.selectFrom('webhook_deliveries').select(['id', 'subscription_id', 'rate_date']).execute();
    const of = (subscriptionId: string, rateDate: string) => {
      const delivery = deliveries.find((d) => d.subscription_id === subscriptionId && d.rate_date === rateDate)!;
      const at = new Date(evening(rateDate));
      const retryAt = new Date(at.getTime() + 60_000);
      return {
        deliveryId: delivery.id,
        event: 'rates.published' as const,
        subscriptionId,
        rateDate,
        attempt: 1,
        ok: false,
        status: 503,
        error: 'HTTP 503',
        at,
        durationMs: 5,
        responseBody: 'busy',
        retryAt,
        deactivateAt: 1_000,
      };
    };
    const rounds = 40;
    for (let round = 0; round < rounds; round++) {
      await Promise.all([
        recordAttempts(app.db, [of(first, '2026-05-13'), of(second, '2026-05-13')]),
        recordAttempts(app.db, [of(second, '2026-05-14'), of(first, '2026-05-14')]),
      ]);
    }
    expect(await attempts(first)).toHaveLength(2 * rounds);
    expect(await attempts(second)).toHaveLength(2 * rounds);
  });

  it('an attempt of a subscription deleted meanwhile is left out; the rest of its batch is written', async () => {
    const { app, subscribe, attempts } = await setUp('2026-05-12');
    const kept = await subscribe('/kept');
    const at = new Date(evening('2026-05-12'));
    const attempt = {
      event: 'rates.published' as const,
      rateDate: '2026-05-12',
      attempt: 1,
      ok: true,
      status: 200,
      error: null,
      at,
      durationMs: 12,
      responseBody: '',
      retryAt: null,
      deactivateAt: 10,
    };
    await recordAttempts(app.db, [
      { ...attempt, deliveryId: '0b0d8a35-8d6f-4b43-9d0e-3c7d6f0b2a11', subscriptionId: 'f'.repeat(32) },
      { ...attempt, deliveryId: '7c1e4a7e-5a54-4f0e-8a77-0d3b8f6a9c22', subscriptionId: kept },
    ]);
    expect((await attempts(kept)).map((r) => r.delivery_id)).toEqual(['7c1e4a7e-5a54-4f0e-8a77-0d3b8f6a9c22']);
    expect(await app.db.selectFrom('webhook_attempts').select('id').where('subscription_id', '=', 'f'.repeat(32)).execute()).toEqual([]);
  });

  it('the worker prunes attempts older than 30 days and keeps the rest; deleting a subscription deletes its attempts', async () => {
    const { app, key, subscribe, publish, runAt, attempts } = await setUp('2026-01-12');
    const id = await subscribe('/old');
    await publish('2026-01-13');
    await runAt(evening('2026-01-13'));
    await publish('2026-02-10');
    await runAt(evening('2026-02-10'));
    expect((await attempts(id)).map((r) => r.rate_date)).toEqual(['2026-01-13', '2026-02-10']);

    // Past 30 days after the first attempt (and past the hour between two prunes): only it goes.
    await runAt(plus(evening('2026-01-13'), 30 * DAY_MS + 60_000 + 3_600_000));
    expect((await attempts(id)).map((r) => r.rate_date)).toEqual(['2026-02-10']);

    const deleted = await app.json(`/api/webhook-subscriptions/${id}`, { key, method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(await attempts(id)).toEqual([]);
  });
});
