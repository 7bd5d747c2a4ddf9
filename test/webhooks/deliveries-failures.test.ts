// D28 (docs/decisions.md): only a 2xx in time acknowledges a delivery. A receiver that hangs
// (timeout, 500 ms in tests), drops the connection, or redirects (never followed) has failed the
// attempt. Test deliveries (POST /api/webhook-subscriptions/{id}/test) change neither failureCount
// nor lastSuccessAt.
import { describe, expect, it } from 'vitest';
import type { RbaDay } from '../../src/rba/index.js';
import { OPENSSL_AVAILABLE } from '../support/certificate.js';
import { expectInstant, UUID } from '../support/expect.js';
import { deliveryScenario, plus, useWebhookReceiver } from '../support/webhook-receiver.js';

const TIMEOUT_MS = 2_000; // room for a TLS handshake on a loaded machine; the hanging receiver waits it out
// Wednesday 13 May 2026, 17:00 in Sydney.
const T0 = '2026-05-13T07:00:00.000Z';
const day = (date: string): RbaDay => ({ date, rates: { USD: '0.6543', EUR: '0.6012', JPY: '98.10' } });

describe.skipIf(!OPENSSL_AVAILABLE)('failed attempts and test deliveries', () => {
  const { receiver, startApp } = useWebhookReceiver();

  async function setUp() {
    // Business: room for five subscriptions
    const { app, key, subscribe } = await deliveryScenario(receiver, startApp, {
      firstDate: '2026-05-12',
      plan: 'business',
      dayOf: day,
      now: T0,
      timeoutMs: TIMEOUT_MS,
    });
    const health = async (id: string) => {
      const list = await app.json('/api/webhook-subscriptions', { key });
      return list.body.subscriptions.find((s: { id: string }) => s.id === id) as { isActive: boolean; failureCount: number; lastSuccessAt: string | null };
    };
    const deliveryOf = (subscriptionId: string) =>
      app.db
        .selectFrom('webhook_deliveries')
        .select(['id', 'state', 'attempts', 'next_attempt_at', 'last_status', 'last_error'])
        .where('subscription_id', '=', subscriptionId)
        .orderBy('rate_date', 'desc')
        .executeTakeFirstOrThrow();
    return { app, key, subscribe, health, deliveryOf };
  }

  it('a hang (timeout), a dropped connection, a redirect and other 3xx each count as a failure; the redirect is not followed', async () => {
    const { app, subscribe, health, deliveryOf } = await setUp();
    const ids = {
      hang: await subscribe('/hang'),
      close: await subscribe('/close'),
      redirect: await subscribe('/redirect'),
      temporary: await subscribe('/temporary'),
      permanent: await subscribe('/permanent'),
    };
    receiver.behave('/hang', 'hang');
    receiver.behave('/close', 'close');
    receiver.behave('/redirect', { redirect: receiver.url('/redirect-target') });
    receiver.behave('/temporary', { status: 307 });
    receiver.behave('/permanent', { status: 301 });
    receiver.behave('/redirect-target', { status: 200 });

    expect(await app.importTable({ format: 'csv', publicationDate: null, days: [day('2026-05-13')] })).toMatchObject({ deliveries: 5 });
    const started = performance.now();
    expect(await app.app.deliveries.runDue()).toBe(5);
    const elapsed = performance.now() - started;
    expect(elapsed, 'the hanging receiver is given up on after the timeout').toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 4000);

    expect(receiver.deliveries.map((d) => d.path).sort()).toEqual(['/close', '/hang', '/permanent', '/redirect', '/temporary']);
    expect(receiver.deliveries.filter((d) => d.path === '/redirect-target')).toEqual([]);
    for (const [name, id] of Object.entries(ids)) {
      expect(await health(id), name).toMatchObject({ isActive: true, failureCount: 1, lastSuccessAt: null });
      const row = await deliveryOf(id);
      expect(row, name).toMatchObject({ state: 'pending', attempts: 1 });
      expect(row.next_attempt_at.toISOString(), name).toBe(plus(T0, 60_000));
    }
    expect((await deliveryOf(ids.hang)).last_status).toBeNull();
    expect((await deliveryOf(ids.hang)).last_error).toMatch(/timed out/);
    expect((await deliveryOf(ids.close)).last_status).toBeNull();
    expect((await deliveryOf(ids.redirect)).last_status).toBe(302);
    expect((await deliveryOf(ids.temporary)).last_status).toBe(307);
    expect((await deliveryOf(ids.permanent)).last_status).toBe(301);

    // The retry a minute later: the same again, and still nothing for the redirect's target.
    app.setNow(plus(T0, 60_000));
    expect(await app.app.deliveries.runDue()).toBe(5);
    expect(receiver.deliveries).toHaveLength(10);
    expect(receiver.deliveries.filter((d) => d.path === '/redirect-target')).toEqual([]);
    for (const id of Object.values(ids)) expect((await health(id)).failureCount).toBe(2);
    // the client gave up on the hanging request: its connection is not left open
    await expect.poll(() => receiver.openConnections(), { timeout: 2000 }).toBe(0);
  });

  it('test deliveries change neither failureCount nor lastSuccessAt', async () => {
    const { app, key, subscribe, health, deliveryOf } = await setUp();
    const id = await subscribe('/tested');
    const test = () => app.json(`/api/webhook-subscriptions/${id}/test`, { key, method: 'POST' });

    // A fresh subscription: a successful test leaves lastSuccessAt null, a failing one leaves the count at 0.
    receiver.behave('/tested', { status: 200 });
    let res = await test();
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ success: true, responseStatus: 200, message: expect.any(String) });
    const sample = receiver.deliveries.at(-1)!;
    expect(sample.headers['x-exchangerates-event']).toBe('rates.test');
    expect(sample.headers['x-exchangerates-delivery']).toMatch(UUID);
    expect(sample.json).toMatchObject({ event: 'rates.test', date: '2026-05-12', base: 'AUD', delivery_id: sample.headers['x-exchangerates-delivery'] });
    expect(sample.signatureValid).toBe(true);
    expect(await health(id)).toMatchObject({ failureCount: 0, lastSuccessAt: null, isActive: true });

    receiver.behave('/tested', { status: 500 });
    res = await test();
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ success: false, responseStatus: 500 });
    receiver.behave('/tested', 'close');
    res = await test();
    expect(res.body).toMatchObject({ success: false, responseStatus: 0 });
    expect(await health(id)).toMatchObject({ failureCount: 0, lastSuccessAt: null, isActive: true });
    // test deliveries are not recorded as deliveries
    expect(await app.db.selectFrom('webhook_deliveries').select('id').execute()).toEqual([]);

    // One real failure, then tests either way: the count stays at 1.
    receiver.behave('/tested', { status: 500 });
    await app.importTable({ format: 'csv', publicationDate: null, days: [day('2026-05-13')] });
    await app.app.deliveries.runDue();
    expect(await health(id)).toMatchObject({ failureCount: 1, lastSuccessAt: null });
    receiver.behave('/tested', { status: 200 });
    expect((await test()).body).toMatchObject({ success: true, responseStatus: 200 });
    expect(await health(id)).toMatchObject({ failureCount: 1, lastSuccessAt: null });

    // The real retry succeeds; a later failing test keeps lastSuccessAt and the count at 0.
    app.setNow(plus(T0, 60_000));
    await app.app.deliveries.runDue();
    let healthy = await health(id);
    expect(healthy.failureCount).toBe(0);
    expectInstant(healthy.lastSuccessAt, plus(T0, 60_000));
    expect(await deliveryOf(id)).toMatchObject({ state: 'delivered', attempts: 2 });

    app.setNow(plus(T0, 3_600_000));
    receiver.behave('/tested', { status: 500 });
    expect((await test()).body).toMatchObject({ success: false, responseStatus: 500 });
    receiver.behave('/tested', { status: 200 });
    expect((await test()).body).toMatchObject({ success: true, responseStatus: 200 });
    healthy = await health(id);
    expect(healthy.failureCount).toBe(0);
    expectInstant(healthy.lastSuccessAt, plus(T0, 60_000));
  });
});
