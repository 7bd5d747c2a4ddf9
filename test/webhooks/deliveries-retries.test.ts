// D28 (docs/decisions.md): attempts at 0, 1 min, 5 min, 30 min, 2 h and 6 h after the delivery was
// recorded, then the delivery has failed; failureCount counts consecutive failed attempts on the
// subscription, a success resets it and sets lastSuccessAt; at 10 the subscription is deactivated
// and its pending deliveries are abandoned unsent; PATCH {isActive: true} reactivates it with the
// count at 0.
// The clock is the test's; runDue is called by hand after each move.
import { describe, expect, it } from 'vitest';
import { graphql, type TadaDocumentNode } from '../../src/graphql.js';
import type { RbaDay } from '../../src/rba/index.js';
import { OPENSSL_AVAILABLE } from '../support/certificate.js';
import { expectInstant, UUID } from '../support/expect.js';
import { deliveryScenario, evening, plus, useWebhookReceiver } from '../support/webhook-receiver.js';

const JSON_HEADERS = { 'Content-Type': 'application/json' };
const OFFSETS_MS = [0, 60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 6 * 3_600_000];

const day = (date: string, usd = '0.6543'): RbaDay => ({ date, rates: { USD: usd, EUR: '0.6012', TWI: '61.40' } });

describe.skipIf(!OPENSSL_AVAILABLE)('delivery retries and subscription health', () => {
  const { receiver, startApp } = useWebhookReceiver();

  /** An app reaching the receiver, a Professional key, and a first stored day (so the next import is a publication). */
  async function setUp(firstDate: string) {
    const scenario = await deliveryScenario(receiver, startApp, { firstDate, plan: 'professional', dayOf: (date) => day(date) });
    const { app, key, subscribe, runAt } = scenario;
    const publish = async (date: string, deliveries = 1) => {
      expect(await scenario.publish(date)).toMatchObject({ published: date, deliveries });
    };
    const health = async (id: string) => {
      const list = await app.json('/api/webhook-subscriptions', { key });
      expect(list.status).toBe(200);
      return list.body.subscriptions.find((s: { id: string }) => s.id === id) as { isActive: boolean; failureCount: number; lastSuccessAt: string | null };
    };
    const delivery = (rateDate: string) =>
      app.db
        .selectFrom('webhook_deliveries')
        .select(['id', 'state', 'attempts', 'next_attempt_at', 'last_status', 'finished_at'])
        .where('rate_date', '=', rateDate)
        .executeTakeFirstOrThrow();
    return { app, key, subscribe, publish, health, delivery, runAt };
  }

  it('a receiver answering 500 gets exactly 6 attempts at 0, 1 min, 5 min, 30 min, 2 h and 6 h; then the delivery has failed', async () => {
    const { subscribe, publish, health, delivery, runAt } = await setUp('2026-05-12');
    const id = await subscribe('/fails');
    receiver.behave('/fails', { status: 500 });
    await publish('2026-05-13');
    const t0 = evening('2026-05-13');

    for (const [i, offset] of OFFSETS_MS.entries()) {
      if (offset > 0) {
        expect(await runAt(plus(t0, offset - 1)), `just before attempt ${i + 1}`).toBe(0);
      }
      expect(await runAt(plus(t0, offset)), `attempt ${i + 1}`).toBe(1);
      expect((await health(id)).failureCount, `after attempt ${i + 1}`).toBe(i + 1);
      const row = await delivery('2026-05-13');
      expect(row.attempts).toBe(i + 1);
      if (i < OFFSETS_MS.length - 1) {
        expect(row.state).toBe('pending');
        expect(row.next_attempt_at.toISOString()).toBe(plus(t0, OFFSETS_MS[i + 1]!));
      }
    }

    const row = await delivery('2026-05-13');
    expect(row).toMatchObject({ state: 'failed', attempts: 6, last_status: 500 });
    expectInstant(row.finished_at?.toISOString(), plus(t0, OFFSETS_MS[5]!));
    expect(await runAt(plus(t0, 24 * 3_600_000)), 'no 7th attempt').toBe(0);
    expect(await runAt(plus(t0, 7 * 24 * 3_600_000)), 'no 7th attempt').toBe(0);

    // the same delivery, byte for byte, every time
    const sent = receiver.deliveries;
    expect(sent).toHaveLength(6);
    expect(new Set(sent.map((d) => d.headers['x-exchangerates-delivery']))).toEqual(new Set([row.id]));
    expect(row.id).toMatch(UUID);
    expect(new Set(sent.map((d) => d.rawBody)).size).toBe(1);
    expect(new Set(sent.map((d) => d.headers['x-exchangerates-signature'])).size).toBe(1);
    expect(sent.every((d) => d.signatureValid === true && d.path === '/fails' && d.answeredWith === 500)).toBe(true);
    expect(sent[0]!.json).toMatchObject({ event: 'rates.published', date: '2026-05-13', delivery_id: row.id });

    // 6 failures are below the threshold
    expect(await health(id)).toMatchObject({ isActive: true, failureCount: 6, lastSuccessAt: null });
  });

  it('10 consecutive failures deactivate the subscription; its pending delivery is abandoned unsent; PATCH reactivates it with the count at 0', async () => {
    const { app, key, subscribe, publish, health, runAt } = await setUp('2026-05-11');
    const id = await subscribe('/down');
    const healthyId = await subscribe('/healthy'); // another subscription of the same account, unaffected
    receiver.behave('/down', { status: 500 });

    // First publication: 6 failed attempts.
    await publish('2026-05-12', 2);
    const t1 = evening('2026-05-12');
    for (const offset of OFFSETS_MS) await runAt(plus(t1, offset));
    expect(await health(id)).toMatchObject({ isActive: true, failureCount: 6 });

    // Second publication: 4 more, the 10th deactivates.
    await publish('2026-05-13', 2);
    const t2 = evening('2026-05-13');
    for (const [i, offset] of OFFSETS_MS.slice(0, 4).entries()) {
      await runAt(plus(t2, offset));
      expect(await health(id), `attempt ${i + 1} of the second publication`).toMatchObject({ failureCount: 7 + i, isActive: i < 3 });
    }
    const down = await health(id);
    expect(down).toMatchObject({ isActive: false, failureCount: 10, lastSuccessAt: null });
    expect(await health(healthyId)).toMatchObject({ isActive: true, failureCount: 0 });

    // Its next attempt comes due: abandoned, not sent.
    const sentBefore = receiver.deliveries.filter((d) => d.path === '/down').length;
    expect(sentBefore).toBe(10);
    await runAt(plus(t2, OFFSETS_MS[4]!));
    await runAt(plus(t2, OFFSETS_MS[5]!));
    expect(receiver.deliveries.filter((d) => d.path === '/down')).toHaveLength(10);
    const abandoned = await app.db
      .selectFrom('webhook_deliveries')
      .select(['state', 'attempts'])
      .where('subscription_id', '=', id)
      .where('rate_date', '=', '2026-05-13')
      .executeTakeFirstOrThrow();
    expect(abandoned).toEqual({ state: 'abandoned', attempts: 4 });
    expect((await health(id)).failureCount).toBe(10);

    // While inactive, a publication records nothing for it.
    await publish('2026-05-14', 1);
    await runAt(evening('2026-05-14'));
    expect(receiver.deliveries.filter((d) => d.path === '/down')).toHaveLength(10);
    const forInactive = await app.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('subscription_id', '=', id)
      .where('rate_date', '=', '2026-05-14')
      .execute();
    expect(forInactive).toEqual([]);

    // Reactivated: active, count 0, and it receives the next publication.
    const patched = await app.json(`/api/webhook-subscriptions/${id}`, { key, method: 'PATCH', headers: JSON_HEADERS, body: { isActive: true } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.subscription).toMatchObject({ id, isActive: true, failureCount: 0 });
    expect(await health(id)).toMatchObject({ isActive: true, failureCount: 0, lastSuccessAt: null });

    receiver.behave('/down', { status: 200 });
    await publish('2026-05-15', 2);
    expect(await runAt(evening('2026-05-15'))).toBe(2);
    const received = receiver.deliveries.filter((d) => d.path === '/down').at(-1)!;
    expect(received.json).toMatchObject({ event: 'rates.published', date: '2026-05-15' });
    expect(received.signatureValid).toBe(true);
    const healthy = await health(id);
    expect(healthy).toMatchObject({ isActive: true, failureCount: 0 });
    expectInstant(healthy.lastSuccessAt, evening('2026-05-15'));
  });

  it.each<[string, TadaDocumentNode<unknown, { e: string }>]>([
    ['suspended', graphql('mutation($e: EmailAddress!) { setAccountStatus(email: $e, status: suspended) { status } }')],
    ['moved to Starter', graphql('mutation($e: EmailAddress!) { setAccountPlan(email: $e, plan: starter) { plan } }')],
  ])('a pending retry of an account %s meanwhile is abandoned unsent', async (_what, change) => {
    const { app, key, subscribe, publish, delivery, runAt } = await setUp('2026-05-12');
    await subscribe('/later');
    receiver.behave('/later', { status: 500 });
    await publish('2026-05-13');
    const t0 = evening('2026-05-13');
    expect(await runAt(t0)).toBe(1);

    const { email } = await app.db
      .selectFrom('accounts')
      .innerJoin('api_keys', 'api_keys.account_id', 'accounts.id')
      .select('accounts.email')
      .where('api_keys.prefix', '=', key.split('_')[0]!)
      .executeTakeFirstOrThrow();
    const changed = await app.operator(change, { e: email });
    expect(changed.errors).toBeUndefined();

    expect(await runAt(plus(t0, OFFSETS_MS[1]!))).toBe(0);
    expect(await delivery('2026-05-13')).toMatchObject({ state: 'abandoned', attempts: 1 });
  });

  it('a success after failures resets failureCount to 0 and sets lastSuccessAt', async () => {
    const { subscribe, publish, health, delivery, runAt } = await setUp('2026-05-12');
    const id = await subscribe('/flaky');
    receiver.behave('/flaky', { status: 500 }, { status: 503 }, { status: 204 });
    await publish('2026-05-13');
    const t0 = evening('2026-05-13');

    await runAt(plus(t0, OFFSETS_MS[0]!));
    await runAt(plus(t0, OFFSETS_MS[1]!));
    expect(await health(id)).toMatchObject({ failureCount: 2, lastSuccessAt: null, isActive: true });

    expect(await runAt(plus(t0, OFFSETS_MS[2]!))).toBe(1);
    const healed = await health(id);
    expect(healed).toMatchObject({ failureCount: 0, isActive: true });
    expectInstant(healed.lastSuccessAt, plus(t0, OFFSETS_MS[2]!));
    expect(await delivery('2026-05-13')).toMatchObject({ state: 'delivered', attempts: 3, last_status: 204 });

    // delivered: no further attempts
    expect(await runAt(plus(t0, OFFSETS_MS[3]!))).toBe(0);
    expect(await runAt(plus(t0, OFFSETS_MS[5]!))).toBe(0);
    expect(receiver.deliveries.map((d) => d.answeredWith)).toEqual([500, 503, 204]);
  });

  it('a late worker catches up: each attempt is due at max(recorded + offset, now), one per run, then the schedule resumes', async () => {
    const { subscribe, publish, delivery, runAt } = await setUp('2026-05-12');
    await subscribe('/late');
    receiver.behave('/late', { status: 500 });
    await publish('2026-05-13');
    const t0 = evening('2026-05-13');
    // The worker did not run for 20 minutes: attempts 1 to 3 (due at 0, 1 and 5 min) go one per run,
    // each due again at once; the fourth is back on the schedule, 30 min after the recording.
    expect(await runAt(plus(t0, 20 * 60_000))).toBe(1);
    const row = await delivery('2026-05-13');
    expect(row.attempts).toBe(1);
    expect(row.next_attempt_at.toISOString()).toBe(plus(t0, 20 * 60_000));
    expect(await runAt(plus(t0, 20 * 60_000))).toBe(1);
    expect((await delivery('2026-05-13')).next_attempt_at.toISOString()).toBe(plus(t0, 20 * 60_000));
    expect(await runAt(plus(t0, 20 * 60_000))).toBe(1);
    // the fourth is due 30 min after the recording
    expect((await delivery('2026-05-13')).next_attempt_at.toISOString()).toBe(plus(t0, OFFSETS_MS[3]!));
    expect(await runAt(plus(t0, 20 * 60_000))).toBe(0);
  });
});
