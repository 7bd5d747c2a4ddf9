// GET /metrics on the internal port: behind the operator token, in Prometheus text format (parsed
// here by a Prometheus parser), with request counts and latencies by route template, method and
// status, quota and keyless-limit refusals, response-cache hits, webhook attempts by outcome, the
// age of the newest stored day, database query times and Node's process metrics.
import { describe, expect, it } from 'vitest';
import { OPENSSL_AVAILABLE } from '../support/certificate.js';
import { scrape, sample, seriesValue } from '../support/prometheus.js';
import { syntheticTable } from '../support/rates.js';
import { useWebhookReceiver } from '../support/webhook-receiver.js';
import { NOW, PERIOD, account } from '../limits/support.js';
import { appForFile } from '../support/app.js';

const t = appForFile({ now: NOW }, syntheticTable('2026-03-02', '2026-05-11'));

const count = (value: string | undefined) => Number(value ?? 'NaN');

describe('GET /metrics', () => {
  it('needs the operator token', async () => {
    const response = await t.app.internal.fetch('http://internal.test/metrics');
    expect(response.status).toBe(401);
    const wrong = await t.app.internal.fetch('http://internal.test/metrics', { headers: { Authorization: 'Bearer not-the-token-not-the-token' } });
    expect(wrong.status).toBe(401);
  });

  it('counts real requests by route template, method and status, with refusals and cache hits', async () => {
    const { key } = await account(t, 'professional');
    const { key: spent } = await account(t, 'professional', { billingDay: 20, used: 50_000, period: PERIOD });
    const before = await scrape(t);
    expect(before.families.get('http_requests_total')!.type).toBe('COUNTER');

    for (let i = 0; i < 3; i++) expect((await t.request('/latest/USD', { key })).status).toBe(200);
    expect((await t.request('/latest/EUR', { key })).status).toBe(200);
    expect((await t.request('/latest/XYZ', { key })).status).toBe(400);
    expect((await t.request('/latest', { key: spent })).status).toBe(429);
    expect((await t.request('/2026-05-11', { key })).status).toBe(200);
    expect((await t.request('/nowhere')).status).toBe(404);
    const remote = { address: '203.0.113.9' };
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await t.request('/convert?from=USD&to=EUR&amount=1', { remote: { ...remote, encrypted: true } })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);

    const after = await scrape(t);
    const increase = (name: string, labels: Record<string, string> = {}) =>
      count(sample(after, name, labels)?.value) - (sample(before, name, labels) ? count(sample(before, name, labels)!.value) : 0);

    expect(increase('http_requests_total', { route: '/latest/{currency}', method: 'GET', status: '200' })).toBe(4);
    expect(increase('http_requests_total', { route: '/latest/{currency}', method: 'GET', status: '400' })).toBe(1);
    expect(increase('http_requests_total', { route: '/latest', method: 'GET', status: '429' })).toBe(1);
    expect(increase('http_requests_total', { route: '/{date}', method: 'GET', status: '200' })).toBe(1);
    expect(increase('http_requests_total', { route: 'unmatched', method: 'GET', status: '404' })).toBe(1);
    expect(increase('http_requests_total', { route: '/convert', method: 'GET', status: '200' })).toBe(3);
    expect(increase('http_requests_total', { route: '/convert', method: 'GET', status: '429' })).toBe(1);
    expect(increase('audrates_quota_refusals_total')).toBe(1);
    expect(increase('audrates_keyless_limit_refusals_total')).toBe(1);
    // the second and third /latest/USD within the second share the first's answer; so do the three
    // keyless conversions after the first (the answer is found before the limit refuses the fourth)
    expect(increase('audrates_response_cache_hits_total', { route: '/latest/{currency}' })).toBe(2);
    expect(increase('audrates_response_cache_hits_total', { route: '/convert' })).toBe(3);

    expect(after.families.get('http_request_duration_seconds')!.type).toBe('HISTOGRAM');
    const usd = { route: '/latest/{currency}', method: 'GET', status: '200' };
    expect(seriesValue(after, 'http_request_duration_seconds_count', usd) - seriesValue(before, 'http_request_duration_seconds_count', usd)).toBe(4);
    expect(seriesValue(after, 'http_request_duration_seconds_bucket', { le: '+Inf', ...usd })).toBe(
      seriesValue(after, 'http_request_duration_seconds_count', usd),
    );
    expect(seriesValue(after, 'http_request_duration_seconds_sum', usd)).toBeGreaterThan(0);
  });

  it("reports the newest stored day's age from its 16:00 Sydney slot, database query times and Node's process metrics", async () => {
    const families = await scrape(t);
    const { families: byName } = families;
    // 2026-05-11 16:00 Sydney (AEST) is 06:00 UTC; the clock says 2026-05-12 03:00 UTC: 21 hours.
    expect(count(sample(families, 'audrates_newest_rate_day_age_seconds')!.value)).toBe(21 * 3600);
    expect(seriesValue(families, 'audrates_db_query_duration_seconds_count', { outcome: 'ok' })).toBeGreaterThan(0);
    for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
      expect(byName.has(name), name).toBe(true);
    }
    if (process.env.DATABASE_URL) {
      const pool = (state: string) => count(sample(families, 'audrates_db_pool_connections', { state })!.value);
      expect(pool('total')).toBeGreaterThan(0);
      expect(pool('idle')).toBeLessThanOrEqual(pool('total'));
      expect(pool('waiting')).toBeGreaterThanOrEqual(0);
    } else {
      expect(byName.has('audrates_db_pool_connections')).toBe(false);
    }
  });
});

describe.skipIf(!OPENSSL_AVAILABLE)('webhook attempts in /metrics', () => {
  const { receiver, startApp } = useWebhookReceiver();

  it('counts attempts by outcome, with their latency', async () => {
    const app = await startApp({
      now: '2026-05-13T07:00:00.000Z',
      config: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
      webhookNetwork: { ca: [receiver.ca], timeoutMs: 2_000 },
    });
    const key = await app.createKey('business');
    await app.importTable({ format: 'csv', publicationDate: null, days: [{ date: '2026-05-11', rates: { USD: '0.6543' } }] });
    for (const path of ['/ok', '/broken']) {
      const res = await app.json('/api/webhook-subscriptions', {
        key,
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: { url: receiver.url(path) },
      });
      expect(res.status).toBe(200);
      receiver.setSecret(path, res.body.signingSecret);
    }
    receiver.behave('/broken', { status: 500 });
    await app.importTable({ format: 'csv', publicationDate: null, days: [{ date: '2026-05-12', rates: { USD: '0.6550' } }] });
    expect(await app.app.deliveries.runDue()).toBe(2);

    const families = await scrape(app);
    expect(sample(families, 'audrates_webhook_attempts_total', { outcome: 'delivered' })!.value).toBe('1');
    expect(sample(families, 'audrates_webhook_attempts_total', { outcome: 'failed' })!.value).toBe('1');
    expect(seriesValue(families, 'audrates_webhook_attempt_duration_seconds_count', { outcome: 'delivered' })).toBe(1);
    expect(seriesValue(families, 'audrates_webhook_attempt_duration_seconds_count', { outcome: 'failed' })).toBe(1);
    expect(seriesValue(families, 'audrates_webhook_attempt_duration_seconds_sum', { outcome: 'delivered' })).toBeGreaterThan(0);
  });
});
