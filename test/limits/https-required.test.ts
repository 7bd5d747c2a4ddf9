// docs/api.md §5 rule 4, D20 (docs/decisions.md): plain HTTP from any address but this machine is
// 403 `https_required` on every endpoint; a TLS socket, or a trusted proxy saying
// `X-Forwarded-Proto: https`, is accepted. The peer is the socket address @whatwg-node/server
// passes in the server context.
import { beforeAll, describe, expect, it } from 'vitest';
import type { RequestOptions } from '../support/app.js';
import { UUID, expectError } from '../support/expect.js';
import { syntheticTable } from '../support/rates.js';
import { account, expectNoRateLimitHeaders, remainingAfterOne } from './support.js';
import { appForFile } from '../support/app.js';

const NOW = '2026-05-12T03:00:00Z';

const t = appForFile({ now: NOW, config: { TRUST_PROXY: '10.0.0.0/8,192.0.2.1,127.0.0.1' } }, syntheticTable('2026-05-04', '2026-05-11'));
let key: string;
beforeAll(async () => {
  ({ key } = await account(t, 'professional', { billingDay: 20 }));
});

const PATHS: [string, string][] = [
  ['GET', '/'],
  ['GET', '/status'],
  ['GET', '/symbols'],
  ['GET', '/latest'],
  ['GET', '/latest/USD'],
  ['GET', '/2026-05-11'],
  ['GET', '/2026-05-11/USD'],
  ['GET', '/timeseries?start_date=2026-05-04&end_date=2026-05-08'],
  ['GET', '/convert?from=USD&to=EUR&amount=10'],
  ['GET', '/no/such/endpoint'],
  ['GET', '/2026-02-30'],
  ['POST', '/latest'],
  ['HEAD', '/latest'],
  ['OPTIONS', '/latest'],
];

const plain = (address: string, headers: Record<string, string> = {}): RequestOptions => ({ remote: { address }, headers });

function expectHttpsRequired(res: { status: number; body: any; headers: Headers }): void {
  expectError(res, 403, 'https_required', /HTTPS/);
  expect(res.headers.get('x-request-id')).toMatch(UUID);
  expectNoRateLimitHeaders(res.headers);
}

describe('plain HTTP from a public address', () => {
  it.each(PATHS.filter(([m]) => m !== 'HEAD'))('%s %s is 403 https_required with the envelope', async (method, path) => {
    expectHttpsRequired(await t.json(path, { ...plain('203.0.113.5'), method }));
  });

  it('HEAD is 403 without a body', async () => {
    const res = await t.request('/latest', { ...plain('203.0.113.5'), method: 'HEAD', key });
    expect(res.status).toBe(403);
    expect(await res.text()).toBe('');
  });

  it('with a valid key too, and it takes nothing from the quota', async () => {
    const before = await remainingAfterOne(t, key);
    for (const [method, path] of PATHS.filter(([m]) => m === 'GET')) {
      expectHttpsRequired(await t.json(path, { ...plain('198.51.100.7'), method, key }));
    }
    expectHttpsRequired(await t.json('/latest', { ...plain('2001:db8::7'), key }));
    expect(await remainingAfterOne(t, key)).toBe(before - 1);
  });

  it("an untrusted peer's X-Forwarded-Proto: https does not help, nor a forwarded loopback address", async () => {
    expectHttpsRequired(await t.json('/symbols', plain('203.0.113.5', { 'X-Forwarded-Proto': 'https' })));
    expectHttpsRequired(await t.json('/symbols', plain('203.0.113.5', { 'X-Forwarded-Proto': 'https', 'X-Forwarded-For': '127.0.0.1' })));
    expectHttpsRequired(await t.json('/symbols', plain('10.0.0.1', { 'X-Forwarded-For': '127.0.0.1' })));
  });
});

describe('accepted', () => {
  it.each(['127.0.0.1', '127.0.0.53', '::1', '::ffff:127.0.0.1', undefined])('plain HTTP from loopback (%s)', async (address) => {
    const res = await t.json('/latest/USD', { ...(address === undefined ? {} : plain(address)), key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, rates: { USD: expect.any(Number) } });
    expect((await t.json('/symbols', address === undefined ? {} : plain(address))).status).toBe(200);
  });

  it.each(['203.0.113.5', '2001:db8::7', '::ffff:198.51.100.1'])('a TLS socket from %s', async (address) => {
    const res = await t.json('/latest/USD', { remote: { address, encrypted: true }, key });
    expect(res.status).toBe(200);
    expect((await t.json('/symbols', { remote: { address, encrypted: true } })).status).toBe(200);
  });

  it.each([
    ['10.1.2.3', 'https'],
    ['10.1.2.3', 'HTTPS'],
    ['192.0.2.1', 'https'],
    ['::ffff:10.0.0.1', 'https'],
  ])('a trusted proxy %s saying X-Forwarded-Proto: %s', async (proxy, proto) => {
    const res = await t.json('/latest/USD', { ...plain(proxy, { 'X-Forwarded-Proto': proto, 'X-Forwarded-For': '203.0.113.9' }), key });
    expect(res.status).toBe(200);
    expect((await t.json('/', plain(proxy, { 'X-Forwarded-Proto': proto }))).status).toBe(200);
  });
});

describe('a trusted proxy forwarding plain HTTP', () => {
  it.each([
    ['X-Forwarded-Proto: http', { 'X-Forwarded-Proto': 'http', 'X-Forwarded-For': '203.0.113.9' }],
    ['no X-Forwarded-Proto', { 'X-Forwarded-For': '203.0.113.9' }],
  ])('%s is 403 https_required', async (_what, headers) => {
    expectHttpsRequired(await t.json('/symbols', plain('10.1.2.3', headers)));
    expectHttpsRequired(await t.json('/latest', { ...plain('192.0.2.1', headers), key }));
  });

  it('a proxy on this machine (127.0.0.1 in TRUST_PROXY) forwarding plain HTTP is 403; forwarding https is not', async () => {
    expectHttpsRequired(await t.json('/symbols', plain('127.0.0.1', { 'X-Forwarded-Proto': 'http', 'X-Forwarded-For': '203.0.113.9' })));
    expectHttpsRequired(await t.json('/latest', { ...plain('127.0.0.1', { 'X-Forwarded-Proto': 'http' }), key }));
    expect((await t.json('/symbols', plain('127.0.0.1', { 'X-Forwarded-Proto': 'https', 'X-Forwarded-For': '203.0.113.9' }))).status).toBe(200);
  });

  it('192.0.2.2 is not in TRUST_PROXY (only 192.0.2.1 is): its https claim is ignored', async () => {
    expectHttpsRequired(await t.json('/symbols', plain('192.0.2.2', { 'X-Forwarded-Proto': 'https' })));
  });
});
