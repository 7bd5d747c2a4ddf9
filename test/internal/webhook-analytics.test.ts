// `webhookHealth` answers exactly from the deliveries of a publication the test made: one receiver
// acknowledges, one answers 500 (its delivery waits for a retry), overall and per subscription,
// and the failing ones alone; attempt latency percentiles from the attempts the worker recorded,
// and over many attempts the same floats as percentile_cont's.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { insertAttempts } from '../../src/db/webhook-rollups.js';
import { graphql } from '../../src/graphql.js';
/** percentile_cont: linear between the two nearest of the sorted values */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = p * (sorted.length - 1);
  const below = sorted[Math.floor(at)]!;
  return below + (sorted[Math.ceil(at)]! - below) * (at - Math.floor(at));
}
import { OPENSSL_AVAILABLE } from '../support/certificate.js';
import { between, seededRandom } from '../support/random.js';
import { useWebhookReceiver } from '../support/webhook-receiver.js';

describe.skipIf(!OPENSSL_AVAILABLE)('webhookHealth', () => {
  const { receiver, startApp } = useWebhookReceiver();

  it('counts deliveries, attempts and outcomes overall and per subscription; lists the failing ones', async () => {
    const app = await startApp({
      now: '2026-05-13T07:00:00.000Z',
      config: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
      webhookNetwork: { ca: [receiver.ca], timeoutMs: 2_000 },
    });
    const email = 'hooks@example.test';
    const key = await app.createKey('business', email);
    await app.importTable({ format: 'csv', publicationDate: null, days: [{ date: '2026-05-11', rates: { USD: '0.6543' } }] });
    const ids: Record<string, string> = {};
    for (const path of ['/ok', '/broken']) {
      const res = await app.json('/api/webhook-subscriptions', {
        key,
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: { url: receiver.url(path) },
      });
      expect(res.status).toBe(200);
      receiver.setSecret(path, res.body.signingSecret);
      ids[path] = res.body.subscription.id;
    }
    receiver.behave('/broken', { status: 500 });
    await app.importTable({ format: 'csv', publicationDate: null, days: [{ date: '2026-05-12', rates: { USD: '0.6550' } }] });
    expect(await app.app.deliveries.runDue()).toBe(2);

    const counts = 'deliveries delivered gaveUp abandoned pending attempts successRate';
    const result = await app.operator(
      graphql(`{
      all: webhookHealth(from: "2026-05-01", to: "2026-05-31") {
        overall { ${counts} }
        deactivatedSubscriptions
        subscriptions { edges { node { id url accountEmail isActive consecutiveFailures deactivated failingNow lastSuccessAt counts { ${counts} } } } }
      }
      failing: webhookHealth(from: "2026-05-01", to: "2026-05-31", failingOnly: true) { subscriptions { edges { node { id } } } }
      before: webhookHealth(from: "2026-05-01", to: "2026-05-11") { overall { deliveries successRate } }
    }`),
    );
    expect(result.errors).toBeUndefined();
    const { all, failing, before } = result.data!;
    expect(all.overall).toEqual({ deliveries: 2, delivered: 1, gaveUp: 0, abandoned: 0, pending: 1, attempts: 2, successRate: 1 });
    expect(all.deactivatedSubscriptions).toBe(0);
    expect(all.subscriptions.edges.map((e: { node: object }) => e.node)).toEqual([
      {
        id: ids['/broken'],
        url: receiver.url('/broken'),
        accountEmail: email,
        isActive: true,
        consecutiveFailures: 1,
        deactivated: false,
        failingNow: true,
        lastSuccessAt: null,
        counts: { deliveries: 1, delivered: 0, gaveUp: 0, abandoned: 0, pending: 1, attempts: 1, successRate: null },
      },
      {
        id: ids['/ok'],
        url: receiver.url('/ok'),
        accountEmail: email,
        isActive: true,
        consecutiveFailures: 0,
        deactivated: false,
        failingNow: false,
        lastSuccessAt: '2026-05-13T07:00:00.000Z',
        counts: { deliveries: 1, delivered: 1, gaveUp: 0, abandoned: 0, pending: 0, attempts: 1, successRate: 1 },
      },
    ]);
    expect(failing.subscriptions.edges).toEqual([{ node: { id: ids['/broken'] } }]);
    // the subscriptions came after the 11th was stored: nothing was delivered for it
    expect(before.overall).toEqual({ deliveries: 0, successRate: null });

    // latency: a test delivery (rates.test) is not a publication's, so it is left out
    expect((await app.json(`/api/webhook-subscriptions/${ids['/ok']}/test`, { key, method: 'POST' })).status).toBe(200);
    const attempts = await app.db.selectFrom('webhook_attempts').select(['subscription_id', 'duration_ms', 'event']).execute();
    expect(attempts.map((a) => a.event).sort()).toEqual(['rates.published', 'rates.published', 'rates.test']);
    const published = attempts.filter((a) => a.event === 'rates.published');
    const latency = await app.operator(
      graphql(`
        {
          all: webhookHealth(from: "2026-05-01", to: "2026-05-31") {
            latency {
              attempts
              p50Ms
              p95Ms
            }
            subscriptions {
              edges {
                node {
                  id
                  latency {
                    attempts
                    p50Ms
                    p95Ms
                  }
                }
              }
            }
          }
          before: webhookHealth(from: "2026-05-01", to: "2026-05-11") {
            latency {
              attempts
              p50Ms
              p95Ms
            }
          }
        }
      `),
    );
    expect(latency.errors).toBeUndefined();
    const durations = published.map((a) => a.duration_ms);
    expect(latency.data!.all.latency).toEqual({ attempts: 2, p50Ms: percentile(durations, 0.5), p95Ms: percentile(durations, 0.95) });
    expect(latency.data!.all.subscriptions.edges.map((e) => e.node)).toEqual(
      [ids['/broken'], ids['/ok']].map((id) => {
        const own = published.filter((a) => a.subscription_id === id).map((a) => a.duration_ms);
        return { id, latency: { attempts: 1, p50Ms: own[0], p95Ms: own[0] } };
      }),
    );
    expect(latency.data!.before.latency).toEqual({ attempts: 0, p50Ms: null, p95Ms: null });

    // Many attempts over several rate days, durations repeated: the overall percentiles, read from
    // the roll-up of durations, are percentile_cont's over the attempts themselves, float for float.
    const random = seededRandom(7);
    await insertAttempts(
      app.db,
      Array.from({ length: 400 }, (_, i) => ({
        delivery_id: randomUUID(),
        subscription_id: ids['/ok']!,
        event: 'rates.published' as const,
        rate_date: `2026-05-${String(1 + (i % 20)).padStart(2, '0')}`,
        attempt: 1,
        attempted_at: new Date('2026-05-13T07:00:00.000Z'),
        duration_ms: between(random, 0, 899),
        http_status: 200,
        error: null,
        outcome: 'delivered' as const,
      })),
    );
    for (const [from, to] of [
      ['2026-05-01', '2026-05-31'],
      ['2026-05-03', '2026-05-09'],
      ['2026-05-12', '2026-05-12'],
      ['2026-05-20', '2026-05-20'],
    ] as const) {
      const { rows } = await sql<{ attempts: number; p50Ms: number | null; p95Ms: number | null }>`
        SELECT count(*)::int AS attempts,
          percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) AS "p50Ms",
          percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms) AS "p95Ms"
        FROM webhook_attempts WHERE event = 'rates.published' AND rate_date BETWEEN ${from} AND ${to}`.execute(app.db);
      const answer = await app.operator(
        graphql('query($from: LocalDate!, $to: LocalDate!) { webhookHealth(from: $from, to: $to) { latency { attempts p50Ms p95Ms } } }'),
        { from, to },
      );
      expect(answer.data!.webhookHealth.latency, `${from}..${to}`).toEqual(rows[0]);
    }
  });
});
