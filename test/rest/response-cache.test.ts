// Identical requests share an answer for a second (src/rest/response-cache.ts). What must still
// differ per request, and what must never be served from an older answer: a new publication, the
// viewer's plan, the clock (staleness), free mode, and the per-request headers and quota. An MCP
// tool call runs its twin's steps, so it shares the twin's answer under the same rules.
import { beforeAll, describe, expect, it } from 'vitest';
import { listenerFor, post, toolCall } from '../mcp/support.js';
import { appForFile } from '../support/app.js';
import { expectError } from '../support/expect.js';
import { sample, scrape, type Scrape } from '../support/prometheus.js';
import { syntheticDay, table } from '../support/rates.js';

const t = appForFile({ now: '2026-05-12T03:00:00Z' }, table([syntheticDay('2026-03-02'), syntheticDay('2026-05-08'), syntheticDay('2026-05-11')])); // 13:00 Sydney, before the 12th's publication
const listener = listenerFor(t);

describe('answers shared between identical requests', () => {
  let business: string;
  let starter: string;
  beforeAll(async () => {
    business = await t.createKey('business');
    starter = await t.createKey('starter');
  });

  it('a publication is served at once, not the answer kept from before it', async () => {
    expect((await t.json('/latest', { key: business })).body.date).toBe('2026-05-11');
    await t.importTable(table([syntheticDay('2026-05-12')])); // the clock has not moved

    expect((await t.json('/latest', { key: business })).body.date).toBe('2026-05-12');
  });

  it("the viewer's plan is part of the answer: the same dated path is 200 on Business and 403 on Starter, in either order", async () => {
    expect((await t.json('/2026-03-02', { key: business })).status).toBe(200);
    expectError(await t.json('/2026-03-02', { key: starter }), 403, 'plan_restricted');
    expectError(await t.json('/2026-03-02?', { key: starter }), 403, 'plan_restricted');
    expect((await t.json('/2026-03-02?', { key: business })).status).toBe(200);
  });

  it('free mode and keyed /convert do not share an answer', async () => {
    const free = await t.json('/convert?from=USD&to=EUR&amount=10');
    expect(free.body.free).toBe(true);
    const keyed = await t.json('/convert?from=USD&to=EUR&amount=10', { key: business });
    expect(keyed.status).toBe(200);
    expect(keyed.body.free).toBeUndefined();
  });

  it('request ids and the quota stay per request', async () => {
    const first = await t.json('/latest?symbols=USD', { key: business });
    const second = await t.json('/latest?symbols=USD', { key: business });
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(second.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(Number(second.headers.get('x-ratelimit-remaining-monthly'))).toBe(Number(first.headers.get('x-ratelimit-remaining-monthly')) - 1);
  });

  it('the clock moves the answer on: days later the same request says the data is stale', async () => {
    const fresh = await t.json('/latest', { key: business });
    expect(fresh.headers.get('x-data-stale')).toBeNull();
    t.setNow('2026-05-15T03:00:00Z'); // the 13th and 14th were due and never came
    const later = await t.json('/latest', { key: business });
    expect(later.headers.get('x-data-stale')).toBe('true');
    expect(later.headers.get('x-rba-source-date')).toBe('2026-05-12');
  });
});

// Last in the file: it publishes days after the ones the tests above expect.
describe('a tool call and its twin', () => {
  const hits = (scraped: Scrape, route: string) => Number(sample(scraped, 'audrates_response_cache_hits_total', { route })?.value ?? 0);

  it('share one answer within the second, each taking its unit, and a publication reaches both at once', async () => {
    const key = await t.createKey('business');
    t.setNow('2026-05-14T07:00:00Z'); // 17:00 Sydney on the 14th
    await t.importTable(table([syntheticDay('2026-05-13')]));
    const call = async () => {
      const answer = await post(listener, toolCall('get_latest_rates', { symbols: ['CHF'] }), { key });
      expect(answer.status).toBe(200);
      return answer;
    };

    const before = await scrape(t);
    const twin = await t.json('/latest?symbols=CHF', { key });
    expect(twin.body.date).toBe('2026-05-13');
    const shared = await call();
    expect(shared.json.result.structuredContent).toEqual(twin.body);
    expect(Number(shared.headers.get('x-ratelimit-remaining-monthly'))).toBe(Number(twin.headers.get('x-ratelimit-remaining-monthly')) - 1);
    const afterShared = await scrape(t);
    expect(hits(afterShared, 'mcp:get_latest_rates') - hits(before, 'mcp:get_latest_rates')).toBe(1);

    await t.importTable(table([syntheticDay('2026-05-14')])); // the clock has not moved
    const published = await call();
    expect(published.json.result.structuredContent.date).toBe('2026-05-14');
    expect(hits(await scrape(t), 'mcp:get_latest_rates')).toBe(hits(afterShared, 'mcp:get_latest_rates'));
    expect((await t.json('/latest?symbols=CHF', { key })).body).toEqual(published.json.result.structuredContent);
  });
});
