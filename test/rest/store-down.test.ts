// D22 (docs/decisions.md): when the store does not answer, /status is 503 `degraded`. Rates are
// held in memory, but a keyed request must count its unit in the store and a keyless conversion
// its hourly limit, so both are 503 `service_unavailable`, never a 500 (no answer goes out uncounted).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { expectError } from '../support/expect.js';
import { syntheticDay, table } from '../support/rates.js';

describe('the store goes down after serving', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp({ now: '2026-05-12T03:00:00Z' });
    await t.importTable(table([syntheticDay('2026-05-08'), syntheticDay('2026-05-11')]));
    key = await t.createKey();
    // warm the caches, then take the database away
    expect((await t.json('/latest', { key })).status).toBe(200);
    expect((await t.json('/status')).body.status).toBe('operational');
    await t.db.destroy();
  });
  afterAll(() => t.close().catch(() => {}));

  it('/status is 503 degraded, with the status shape', async () => {
    const { status, body } = await t.json('/status');
    expect(status).toBe(503);
    expect(body).toMatchObject({ status: 'degraded', stale: false, last_update: expect.any(String) });
  });

  it('a keyed request for a day held in memory is 503 service_unavailable, not a 500: its unit cannot be counted', async () => {
    expectError(await t.json('/2026-05-08', { key }), 503, 'service_unavailable');
  });

  it('a request that needs the store (a keyless conversion counted against its hourly limit) is 503 service_unavailable, not a 500', async () => {
    expectError(await t.json('/convert?from=USD&to=EUR&amount=10'), 503, 'service_unavailable');
  });
});
