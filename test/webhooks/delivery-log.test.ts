// The delivery log and redelivery (D42 in docs/decisions.md): GET
// /api/webhook-subscriptions/{id}/deliveries lists the last 30 days' deliveries, test deliveries
// included, newest first, 50 a page, each with its attempts; POST …/deliveries/{deliveryId}/redeliver
// makes one more attempt now, same body and id, signed again. Through a real HTTPS receiver; the
// clock is the test's and the worker is run by hand.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { insertAttempts } from '../../src/db/webhook-rollups.js';
import type { RbaDay } from '../../src/rba/index.js';
import { OPENSSL_AVAILABLE } from '../support/certificate.js';
import { expectError, expectInstant, UUID } from '../support/expect.js';
import { deliveryScenario, evening, plus, useWebhookReceiver } from '../support/webhook-receiver.js';

const JSON_HEADERS = { 'Content-Type': 'application/json' };
const OFFSETS_MS = [0, 60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 6 * 3_600_000];
const DAY_MS = 24 * 3_600_000;

const day = (date: string): RbaDay => ({ date, rates: { USD: '0.6543', EUR: '0.6012', TWI: '61.40' } });

interface Attempt {
  at: string;
  status: number | null;
  error: string | null;
  durationMs: number;
}
interface Delivery {
  id: string;
  event: string;
  date: string;
  state: string;
  attempts: Attempt[];
}

describe.skipIf(!OPENSSL_AVAILABLE)('the delivery log and redelivery', () => {
  const { receiver, startApp } = useWebhookReceiver();

  async function setUp(firstDate: string) {
    const scenario = await deliveryScenario(receiver, startApp, { firstDate, plan: 'business', dayOf: day, timeoutMs: 1_000 });
    const { app, key } = scenario;
    const log = async (id: string, query = '', as = key) => {
      const res = await app.json(`/api/webhook-subscriptions/${id}/deliveries${query}`, { key: as });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body as { success: true; deliveries: Delivery[]; nextCursor: string | null };
    };
    const redeliver = (id: string, deliveryId: string, as = key) =>
      app.json(`/api/webhook-subscriptions/${id}/deliveries/${deliveryId}/redeliver`, { key: as, method: 'POST' });
    const health = async (id: string) => {
      const list = await app.json('/api/webhook-subscriptions', { key });
      return list.body.subscriptions.find((s: { id: string }) => s.id === id) as { isActive: boolean; failureCount: number; lastSuccessAt: string | null };
    };
    return { ...scenario, log, redeliver, health };
  }

  it('shows delivered, pending, abandoned and failed deliveries with their attempts, test deliveries included', async () => {
    const { app, key, subscribe, publish, runAt, log } = await setUp('2026-05-12');
    const ok = await subscribe('/ok');
    const fails = await subscribe('/fails');
    const hangs = await subscribe('/hangs');
    const paused = await subscribe('/paused');
    receiver.behave('/fails', { status: 500 });
    receiver.behave('/hangs', 'hang');
    receiver.behave('/paused', { status: 503 });
    await publish('2026-05-13');
    const t0 = evening('2026-05-13');
    expect(await runAt(t0)).toBe(4);

    const [delivered] = (await log(ok)).deliveries;
    expect(delivered).toMatchObject({ event: 'rates.published', date: '2026-05-13', state: 'delivered' });
    expect(delivered!.id).toMatch(UUID);
    expect(delivered!.id).toBe(receiver.deliveries.find((d) => d.path === '/ok')!.headers['x-exchangerates-delivery']);
    expect(delivered!.attempts).toEqual([{ at: expect.any(String), status: 200, error: null, durationMs: expect.any(Number) }]);
    expectInstant(delivered!.attempts[0]!.at, t0);

    const timedOut = (await log(hangs)).deliveries[0]!;
    expect(timedOut).toMatchObject({ state: 'pending', attempts: [{ status: null }] });
    expect(timedOut.attempts[0]!.error).toEqual(expect.any(String));
    expect(timedOut.attempts[0]!.durationMs).toBeGreaterThanOrEqual(900);

    expect((await log(fails)).deliveries[0]).toMatchObject({ state: 'pending', attempts: [{ status: 500, error: expect.any(String) }] });

    // Paused with an attempt due: the delivery is abandoned, not sent.
    const patched = await app.json(`/api/webhook-subscriptions/${paused}`, { key, method: 'PATCH', headers: JSON_HEADERS, body: { isActive: false } });
    expect(patched.status).toBe(200);
    expect(patched.body.subscription.isActive).toBe(false);
    receiver.behave('/hangs', { status: 200 });
    for (const offset of OFFSETS_MS.slice(1)) await runAt(plus(t0, offset));
    expect((await log(paused)).deliveries[0]).toMatchObject({ state: 'abandoned', attempts: [{ status: 503 }] });
    // The schedule ran out: abandoned, six attempts oldest first.
    const ranOut = (await log(fails)).deliveries[0]!;
    expect(ranOut.state).toBe('abandoned');
    expect(ranOut.attempts.map((a) => a.status)).toEqual([500, 500, 500, 500, 500, 500]);
    expect(ranOut.attempts.map((a) => a.at)).toEqual([...ranOut.attempts.map((a) => a.at)].sort());
    // The receiver that hung answers the retry.
    expect((await log(hangs)).deliveries[0]).toMatchObject({ state: 'delivered', attempts: [{ status: null }, { status: 200, error: null }] });

    // A test delivery: newest first, its own event, failed with no attempt planned.
    app.setNow(plus(t0, DAY_MS));
    const test = await app.json(`/api/webhook-subscriptions/${fails}/test`, { key, method: 'POST' });
    expect(test.body.success).toBe(false);
    const page = await log(fails);
    expect(page.nextCursor).toBeNull();
    expect(page.deliveries.map((d) => [d.event, d.state])).toEqual([
      ['rates.test', 'failed'],
      ['rates.published', 'abandoned'],
    ]);
    expect(page.deliveries[0]).toMatchObject({ date: '2026-05-13', attempts: [{ status: 500 }] });
    expect(page.deliveries[0]!.id).toBe(receiver.deliveries.at(-1)!.headers['x-exchangerates-delivery']);
  });

  it('redelivers after the receiver is fixed: same id and body, a valid signature; the log and the health follow', async () => {
    const { subscribe, publish, runAt, log, redeliver, health, app, key } = await setUp('2026-05-12');
    const id = await subscribe('/broken');
    receiver.behave('/broken', { status: 500 });
    await publish('2026-05-13');
    const t0 = evening('2026-05-13');
    for (const offset of OFFSETS_MS) await runAt(plus(t0, offset));
    const [abandoned] = (await log(id)).deliveries;
    expect(abandoned!.state).toBe('abandoned');
    expect((await health(id)).failureCount).toBe(6);

    // Still broken: the redelivery fails and none is planned.
    app.setNow(plus(t0, DAY_MS));
    const again = await redeliver(id, abandoned!.id);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toMatchObject({ success: false, delivery: { id: abandoned!.id, state: 'failed' } });
    expect(again.body.delivery.attempts).toHaveLength(7);
    expect((await health(id)).failureCount, 'a redelivery by hand does not count towards deactivation').toBe(6);

    // Fixed, and paused meanwhile: delivered, still paused.
    const pause = await app.json(`/api/webhook-subscriptions/${id}`, { key, method: 'PATCH', headers: JSON_HEADERS, body: { isActive: false } });
    expect(pause.status).toBe(200);
    receiver.behave('/broken', { status: 204 });
    app.setNow(plus(t0, 2 * DAY_MS));
    const fixed = await redeliver(id, abandoned!.id);
    expect(fixed.status, JSON.stringify(fixed.body)).toBe(200);
    expect(Object.keys(fixed.body.delivery).sort()).toEqual(['attempts', 'id', 'state']);
    expect(fixed.body).toMatchObject({ success: true, delivery: { id: abandoned!.id, state: 'delivered' } });
    expect(fixed.body.delivery.attempts.at(-1)).toMatchObject({ status: 204, error: null });
    expectInstant(fixed.body.delivery.attempts.at(-1).at, plus(t0, 2 * DAY_MS));

    const sent = receiver.deliveries.filter((d) => d.path === '/broken');
    expect(sent).toHaveLength(8);
    const last = sent.at(-1)!;
    expect(last.headers['x-exchangerates-delivery']).toBe(abandoned!.id);
    expect(last.rawBody).toBe(sent[0]!.rawBody);
    expect(last.signatureValid).toBe(true);
    expect(last.answeredWith).toBe(204);

    const after = await health(id);
    expect(after).toMatchObject({ isActive: false, failureCount: 0 });
    expectInstant(after.lastSuccessAt, plus(t0, 2 * DAY_MS));
    expect((await log(id)).deliveries[0]).toMatchObject({ state: 'delivered', attempts: expect.any(Array) });
    expect((await log(id)).deliveries[0]!.attempts).toHaveLength(8);
  });

  it('redelivers a test delivery like a publication: same id and body, signed again, one log entry; no counter moves', async () => {
    const { subscribe, log, redeliver, health, app, key } = await setUp('2026-05-12');
    const id = await subscribe('/ping');
    receiver.behave('/ping', { status: 500 });
    const test = await app.json(`/api/webhook-subscriptions/${id}/test`, { key, method: 'POST' });
    expect(test.body.success).toBe(false);
    const [logged] = (await log(id)).deliveries;
    expect(logged).toMatchObject({ event: 'rates.test', state: 'failed', attempts: [{ status: 500 }] });

    receiver.behave('/ping', { status: 200 });
    app.setNow(plus(evening('2026-05-12'), DAY_MS));
    const again = await redeliver(id, logged!.id);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(Object.keys(again.body.delivery).sort()).toEqual(['attempts', 'id', 'state']);
    expect(again.body).toMatchObject({
      success: true,
      delivery: { id: logged!.id, state: 'delivered', attempts: [{ status: 500 }, { status: 200, error: null }] },
    });
    expectInstant(again.body.delivery.attempts[1].at, plus(evening('2026-05-12'), DAY_MS));

    const sent = receiver.deliveries.filter((d) => d.path === '/ping');
    expect(sent).toHaveLength(2);
    expect(sent[1]!.headers['x-exchangerates-delivery']).toBe(logged!.id);
    expect(sent[1]!.headers['x-exchangerates-event']).toBe('rates.test');
    expect(sent[1]!.rawBody).toBe(sent[0]!.rawBody);
    expect(sent[1]!.signatureValid).toBe(true);
    const page = await log(id);
    expect(page.deliveries.map((d) => [d.id, d.event, d.state, d.attempts.length])).toEqual([[logged!.id, 'rates.test', 'delivered', 2]]);
    // A failed redelivery of it is the log's latest word; a test never touches the health.
    receiver.behave('/ping', { status: 503 });
    expect((await redeliver(id, logged!.id)).body).toMatchObject({ success: false, delivery: { state: 'failed' } });
    expect(await health(id)).toMatchObject({ isActive: true, failureCount: 0, lastSuccessAt: null });
  });

  it('pages 50 at a time, newest first, through an opaque cursor', async () => {
    const { app, subscribe, log } = await setUp('2026-05-12');
    const id = await subscribe('/many');
    const base = Date.parse(evening('2026-05-13'));
    // 120 test deliveries, ten to an instant, so the order must break ties.
    const rows = Array.from({ length: 120 }, (_, i) => ({
      delivery_id: randomUUID(),
      subscription_id: id,
      event: 'rates.test' as const,
      rate_date: '2026-05-12',
      attempt: 1,
      attempted_at: new Date(base + Math.floor(i / 10) * 1000),
      duration_ms: 5,
      http_status: 200,
      error: null,
      outcome: 'delivered' as const,
    }));
    await insertAttempts(app.db, rows);
    app.setNow(plus(evening('2026-05-13'), DAY_MS));
    const seen: string[] = [];
    let cursor: string | null = null;
    const sizes: number[] = [];
    do {
      const page = await log(id, cursor === null ? '' : `?cursor=${encodeURIComponent(cursor)}`);
      sizes.push(page.deliveries.length);
      seen.push(...page.deliveries.map((d) => d.id));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(sizes).toEqual([50, 50, 20]);
    expect(new Set(seen).size).toBe(120);
    const expected = [...rows].sort((a, b) => b.attempted_at.getTime() - a.attempted_at.getTime() || (a.delivery_id < b.delivery_id ? 1 : -1));
    expect(seen).toEqual(expected.map((r) => r.delivery_id));
  });

  it('refuses unknown, foreign, old and malformed ids and cursors with the envelope', async () => {
    const { app, key, subscribe, publish, runAt, log, redeliver } = await setUp('2026-05-12');
    const id = await subscribe('/mine');
    await publish('2026-05-13');
    await runAt(evening('2026-05-13'));
    const [delivery] = (await log(id)).deliveries;
    const test = await app.json(`/api/webhook-subscriptions/${id}/test`, { key, method: 'POST' });
    expect(test.body.success).toBe(true);
    const testId = (await log(id)).deliveries.find((d) => d.event === 'rates.test')!.id;
    expect(testId).toMatch(UUID);
    const other = await app.createKey('professional');

    const unknownSub = 'f'.repeat(32);
    expectError(await app.json(`/api/webhook-subscriptions/${unknownSub}/deliveries`, { key }), 404, 'not_found');
    expectError(await app.json(`/api/webhook-subscriptions/${id}/deliveries`, { key: other }), 404, 'not_found');
    expectError(await app.json(`/api/webhook-subscriptions/not-an-id/deliveries`, { key }), 404, 'not_found');
    expectError(await redeliver(unknownSub, delivery!.id), 404, 'not_found');
    expectError(await redeliver(id, delivery!.id, other), 404, 'not_found');
    expectError(await redeliver(id, randomUUID()), 404, 'not_found');
    expectError(await redeliver(id, 'not-a-uuid'), 404, 'not_found');
    expectError(await redeliver(id, '%E2%82%AC'), 404, 'not_found');

    for (const cursor of ['x', '%FF', 'not base64!', Buffer.from('2026-05-13T07:00:00.000Z nope').toString('base64url'), 'A'.repeat(300)]) {
      expectError(await app.json(`/api/webhook-subscriptions/${id}/deliveries?cursor=${cursor}`, { key }), 400, 'bad_request');
    }
    expectError(await app.json(`/api/webhook-subscriptions/${id}/deliveries?page=2`, { key }), 400, 'bad_request');
    expectError(await app.json(`/api/webhook-subscriptions/${id}/deliveries`, {}), 401, 'invalid_api_key');
    expectError(await app.json(`/api/webhook-subscriptions/${id}/deliveries/${delivery!.id}/redeliver?x=1`, { key, method: 'POST' }), 400, 'bad_request');

    // Thirty days and a moment later: out of the log and not redeliverable, pruned or not.
    app.setNow(plus(evening('2026-05-13'), 30 * DAY_MS + 60_000));
    expect((await log(id)).deliveries).toEqual([]);
    expectError(await redeliver(id, delivery!.id), 404, 'not_found');
  });

  it('the leading process deletes deliveries and attempts older than 30 days, by the injected clock', async () => {
    const { app, subscribe, publish, runAt } = await setUp('2026-05-12');
    const id = await subscribe('/kept');
    await publish('2026-05-13');
    await runAt(evening('2026-05-13'));
    await publish('2026-06-10');
    await runAt(evening('2026-06-10'));
    const count = async () => ({
      deliveries: (await app.db.selectFrom('webhook_deliveries').select('rate_date').where('subscription_id', '=', id).orderBy('rate_date').execute()).map(
        (r) => r.rate_date,
      ),
      attempts: (await app.db.selectFrom('webhook_attempts').select('rate_date').where('subscription_id', '=', id).orderBy('rate_date').execute()).map(
        (r) => r.rate_date,
      ),
    });
    expect(await count()).toEqual({ deliveries: ['2026-05-13', '2026-06-10'], attempts: ['2026-05-13', '2026-06-10'] });

    // A process that does not lead leaves them; the leader deletes them.
    app.app.deliveries.pruneOnlyWhile(() => false);
    await runAt(plus(evening('2026-05-13'), 30 * DAY_MS + 2 * 3_600_000));
    expect(await count()).toEqual({ deliveries: ['2026-05-13', '2026-06-10'], attempts: ['2026-05-13', '2026-06-10'] });
    app.app.deliveries.pruneOnlyWhile(() => true);
    await runAt(plus(evening('2026-05-13'), 30 * DAY_MS + 2 * 3_600_000 + 1_000));
    expect(await count()).toEqual({ deliveries: ['2026-06-10'], attempts: ['2026-06-10'] });
    const rollup = await app.db.selectFrom('webhook_deliveries_daily').selectAll().where('deliveries', '!=', 0).orderBy('rate_date').execute();
    expect(rollup.map((r) => [r.rate_date, r.state, r.deliveries])).toEqual([['2026-06-10', 'delivered', 1]]);
  });
});
