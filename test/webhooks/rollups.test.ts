// The roll-ups webhookHealth reads (migration 0010) stay equal to the rows they count: deliveries
// per rate day and state with their attempts, and publication attempts per rate day and duration,
// after deliveries are recorded, succeed, fail and are retried, are given up, abandoned when their
// subscription is deactivated, after a test delivery (not a publication's), after the worker prunes
// old attempts and deliveries and after a subscription is deleted.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { RbaDay } from '../../src/rba/index.js';
import { OPENSSL_AVAILABLE } from '../support/certificate.js';
import type { TestApp } from '../support/app.js';
import { deliveryScenario, evening, plus, useWebhookReceiver } from '../support/webhook-receiver.js';

const OFFSETS_MS = [0, 60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 6 * 3_600_000];
const DAY_MS = 24 * 3_600_000;
const day = (date: string): RbaDay => ({ date, rates: { USD: '0.6543', EUR: '0.6012', TWI: '61.40' } });

/** Each roll-up beside the same counts taken from the rows (a roll-up's rows at zero count nothing). */
async function rollupsAndRows(db: TestApp['db']) {
  const query = async <T>(statement: ReturnType<typeof sql<T>>) => (await statement.execute(db)).rows;
  return {
    deliveries: await query(sql`
      SELECT rate_date, state, deliveries, attempts FROM webhook_deliveries_daily WHERE deliveries <> 0 OR attempts <> 0 ORDER BY 1, 2`),
    deliveryRows: await query(sql`
      SELECT rate_date, state, count(*)::int AS deliveries, sum(attempts)::int AS attempts FROM webhook_deliveries GROUP BY 1, 2 ORDER BY 1, 2`),
    durations: await query(sql`SELECT rate_date, duration_ms, attempts FROM webhook_attempt_durations WHERE attempts <> 0 ORDER BY 1, 2`),
    durationRows: await query(sql`
      SELECT rate_date, duration_ms, count(*)::int AS attempts FROM webhook_attempts WHERE event = 'rates.published' GROUP BY 1, 2 ORDER BY 1, 2`),
  };
}

describe.skipIf(!OPENSSL_AVAILABLE)('the webhook roll-ups', () => {
  const { receiver, startApp } = useWebhookReceiver();

  it('equal the deliveries and attempts they count through successes, retries, failures, abandonment, pruning and deletion', async () => {
    const { app, key, subscribe, publish, runAt } = await deliveryScenario(receiver, startApp, { firstDate: '2026-05-11', plan: 'business', dayOf: day });
    const states = async () =>
      (await app.db.selectFrom('webhook_deliveries').select(['rate_date', 'state']).orderBy('rate_date').orderBy('state').execute()).map(
        (d) => `${d.rate_date} ${d.state}`,
      );
    const expectInStep = async (stage: string) => {
      const { deliveries, deliveryRows, durations, durationRows } = await rollupsAndRows(app.db);
      expect(deliveries, `deliveries ${stage}`).toEqual(deliveryRows);
      expect(durations, `durations ${stage}`).toEqual(durationRows);
    };

    await subscribe('/ok');
    const flaky = await subscribe('/flaky');
    await subscribe('/down');
    receiver.behave('/flaky', { status: 503 }, { status: 204 });
    receiver.behave('/down', { status: 500 });

    await publish('2026-05-12');
    await expectInStep('when recorded');
    expect(await states()).toEqual(['2026-05-12 pending', '2026-05-12 pending', '2026-05-12 pending']);

    const t1 = evening('2026-05-12');
    await runAt(t1);
    await expectInStep('after a success and two failures');
    await runAt(plus(t1, OFFSETS_MS[1]!));
    await expectInStep('after a retry succeeded');
    for (const offset of OFFSETS_MS.slice(2)) await runAt(plus(t1, offset));
    await expectInStep('after a delivery was given up');
    expect(await states()).toEqual(['2026-05-12 delivered', '2026-05-12 delivered', '2026-05-12 failed']);

    // four more failures of /down deactivate it (D28: at 10); its pending delivery is then abandoned
    await publish('2026-05-13');
    const t2 = evening('2026-05-13');
    for (const offset of OFFSETS_MS.slice(0, 4)) await runAt(plus(t2, offset));
    await expectInStep('after the subscription was deactivated');
    await runAt(plus(t2, OFFSETS_MS[4]!));
    await expectInStep('after a delivery was abandoned');
    expect(await states()).toEqual([
      '2026-05-12 delivered',
      '2026-05-12 delivered',
      '2026-05-12 failed',
      '2026-05-13 abandoned',
      '2026-05-13 delivered',
      '2026-05-13 delivered',
    ]);

    // a test delivery is an attempt of no publication
    expect((await app.json(`/api/webhook-subscriptions/${flaky}/test`, { key, method: 'POST' })).status).toBe(200);
    await expectInStep('after a test delivery');

    // past 30 days after the first publication's attempts (and the hour between two prunes): they
    // go, with its finished deliveries
    await runAt(plus(t1, 30 * DAY_MS + OFFSETS_MS[5]! + 3_600_000));
    const kept = await app.db.selectFrom('webhook_attempts').select('rate_date').where('event', '=', 'rates.published').execute();
    expect(new Set(kept.map((a) => a.rate_date))).toEqual(new Set(['2026-05-13']));
    await expectInStep('after old attempts were pruned');
    expect(await states()).toEqual(['2026-05-13 abandoned', '2026-05-13 delivered', '2026-05-13 delivered']);
    const { rows: emptied } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM webhook_attempt_durations WHERE attempts = 0`.execute(app.db);
    expect(emptied[0]!.n, 'the pruned days leave no rows at zero').toBe(0);

    expect((await app.json(`/api/webhook-subscriptions/${flaky}`, { key, method: 'DELETE' })).status).toBe(200);
    await expectInStep('after a subscription was deleted');
    expect(await states()).toEqual(['2026-05-13 abandoned', '2026-05-13 delivered']);
  });
});
