// D20 (docs/decisions.md) over a real socket: the service (its bundle, as `npm start` runs it) without
// TLS answers plain HTTP from loopback; with loopback configured as a trusted proxy,
// X-Forwarded-Proto decides, which shows that the socket address @whatwg-node/server hands to the
// app is the one the rule uses.
// (Tests send traffic to loopback only; other peers are covered in process, in https-required.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliStore, startService, type CliStore, type RunningService } from '../support/cli.js';
import { get, portOf } from './net.js';

describe('the service over plain HTTP', () => {
  let store: CliStore;
  let service: RunningService;

  beforeAll(async () => {
    store = await createCliStore();
    service = await startService({ ...store.env, TRUST_PROXY: '127.0.0.1' });
  }, 90_000);
  afterAll(async () => {
    await service?.stop();
    await store?.close();
  });

  it('answers a loopback peer', async () => {
    const res = await get(`http://127.0.0.1:${portOf(service.publicUrl)}/symbols`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, count: 21 });
  });

  it('from a trusted proxy, X-Forwarded-Proto decides: https is accepted, http is 403 https_required', async () => {
    const base = `http://127.0.0.1:${portOf(service.publicUrl)}`;
    expect((await get(`${base}/symbols`, { headers: { 'X-Forwarded-Proto': 'https', 'X-Forwarded-For': '203.0.113.9' } })).status).toBe(200);
    for (const path of ['/symbols', '/', '/latest', '/convert?from=USD&to=EUR&amount=1']) {
      const refused = await get(`${base}${path}`, { headers: { 'X-Forwarded-Proto': 'http', 'X-Forwarded-For': '203.0.113.9' } });
      expect(refused.status, path).toBe(403);
      expect(refused.body).toEqual({ success: false, error: { code: 403, type: 'https_required', info: expect.any(String) } });
      expect(refused.headers['content-type']).toMatch(/^application\/json/);
    }
  });
});
