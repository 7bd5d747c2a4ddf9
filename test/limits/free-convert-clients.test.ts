// D19 (docs/decisions.md): who "the client" of keyless /convert is. The socket address (IPv6
// grouped by /64, an IPv4-mapped address being the IPv4 client), or, through a configured trusted
// proxy, the nearest forwarded address that is not a trusted proxy. Only successful keyless
// requests count; 20 simultaneous requests from one client give exactly 3 successes.
import { describe, expect, it } from 'vitest';
import type { RequestOptions } from '../support/app.js';
import { expectError } from '../support/expect.js';
import { syntheticTable } from '../support/rates.js';
import { account } from './support.js';
import { appForFile } from '../support/app.js';

const NOW = '2026-05-12T03:00:00Z';
const CONVERT = '/convert?from=USD&to=EUR&amount=10';
const TRUST_PROXY = '10.0.0.0/8, 2001:db8:ffff::/48';

const t = appForFile({ now: NOW, config: { TRUST_PROXY } }, syntheticTable('2026-05-04', '2026-05-11'));

/** A TLS socket from `address` (D20 is satisfied, so only the rate limit is at stake). */
const from = (address: string, headers: Record<string, string> = {}): RequestOptions => ({ remote: { address, encrypted: true }, headers });
/** A plain-HTTP socket from a trusted proxy that says the client used https. */
const viaProxy = (proxy: string, forwardedFor: string): RequestOptions => ({
  remote: { address: proxy },
  headers: { 'X-Forwarded-For': forwardedFor, 'X-Forwarded-Proto': 'https' },
});

/** The X-RateLimit-Remaining of a keyless /convert, or 'limited' for a 429. */
async function remaining(options: RequestOptions): Promise<number | 'limited'> {
  const res = await t.json(CONVERT, options);
  if (res.status === 429) {
    expectError(res, 429, 'rate_limit_exceeded', /^Rate limit exceeded\. Try again in \d+ seconds\.$/);
    return 'limited';
  }
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.free).toBe(true);
  return Number(res.headers.get('x-ratelimit-remaining'));
}

const sequence = async (options: RequestOptions[]) => {
  const out: (number | 'limited')[] = [];
  for (const o of options) out.push(await remaining(o));
  return out;
};

describe('clients are counted apart', () => {
  it('two IPv4 addresses have a window each', async () => {
    expect(await sequence([from('203.0.113.5'), from('203.0.113.5'), from('203.0.113.5'), from('203.0.113.5')])).toEqual([2, 1, 0, 'limited']);
    expect(await sequence([from('203.0.113.6'), from('198.51.100.5')])).toEqual([2, 2]);
    expect(await remaining(from('203.0.113.5'))).toBe('limited');
  });

  it('::ffff:203.0.113.7 is the same client as 203.0.113.7', async () => {
    expect(await sequence([from('::ffff:203.0.113.7'), from('203.0.113.7'), from('::ffff:cb00:7107'), from('203.0.113.7')])).toEqual([2, 1, 0, 'limited']);
  });

  it('IPv6 addresses in one /64 share a window; another /64 has its own', async () => {
    expect(
      await sequence([from('2001:db8:1:2::5'), from('2001:db8:1:2:ffff:ffff:ffff:ffff'), from('2001:0db8:0001:0002:0:0:0:abcd'), from('2001:db8:1:2::1')]),
    ).toEqual([2, 1, 0, 'limited']);
    expect(await sequence([from('2001:db8:1:3::5'), from('2001:db8:1:1::5'), from('2001:db8:2:2::5')])).toEqual([2, 2, 2]);
  });
});

describe('X-Forwarded-For', () => {
  it('from an untrusted peer changes nothing: the socket address is the client', async () => {
    const peer = '203.0.113.20';
    expect(
      await sequence([
        from(peer, { 'X-Forwarded-For': '198.51.100.1' }),
        from(peer, { 'X-Forwarded-For': '198.51.100.2' }),
        from(peer, { 'X-Forwarded-For': '198.51.100.3, 10.0.0.1' }),
        from(peer, { 'X-Forwarded-For': '198.51.100.4' }),
      ]),
    ).toEqual([2, 1, 0, 'limited']);
    // the forged addresses' own windows were never touched
    expect(await remaining(from('198.51.100.1'))).toBe(2);
    // nor does a forged X-Forwarded-Proto make an untrusted peer's plain HTTP acceptable (D20)
    expectError(
      await t.json(CONVERT, { remote: { address: '203.0.113.21' }, headers: { 'X-Forwarded-Proto': 'https', 'X-Forwarded-For': '198.51.100.9' } }),
      403,
      'https_required',
    );
  });

  it('from a trusted proxy the forwarded address is the client, whichever proxy it came through', async () => {
    expect(
      await sequence([
        viaProxy('10.0.0.1', '198.51.100.10'),
        viaProxy('10.9.8.7', '198.51.100.10'),
        viaProxy('::ffff:10.0.0.1', '198.51.100.10'),
        viaProxy('10.0.0.1', '198.51.100.10'),
      ]),
    ).toEqual([2, 1, 0, 'limited']);
    expect(await remaining(viaProxy('10.0.0.1', '198.51.100.11'))).toBe(2);
    // the proxy's own address is another client
    expect(await remaining({ remote: { address: '10.0.0.1' }, headers: { 'X-Forwarded-Proto': 'https' } })).toBe(2);
    // and the forwarded client's own socket (were it to connect directly) is the same client
    expect(await remaining(from('198.51.100.11'))).toBe(1);
  });

  it('the client is the rightmost hop that is not a trusted proxy: addresses written further left by the client are ignored', async () => {
    expect(
      await sequence([
        viaProxy('10.0.0.1', '198.51.100.20'),
        viaProxy('10.0.0.1', '1.2.3.4, 198.51.100.20'),
        viaProxy('10.0.0.1', '5.6.7.8, 198.51.100.20, 10.0.0.99'), // two proxies: ours at 10.0.0.99 and 10.0.0.1
        viaProxy('10.0.0.1', '9.9.9.9, 198.51.100.20'),
      ]),
    ).toEqual([2, 1, 0, 'limited']);
    expect(await remaining(viaProxy('10.0.0.1', '1.2.3.4'))).toBe(2);
  });

  it('through a trusted IPv6 proxy, an IPv6 client is grouped by its /64', async () => {
    expect(
      await sequence([
        viaProxy('2001:db8:ffff::1', '2001:db8:5:6::1'),
        viaProxy('2001:db8:ffff:1::2', '2001:db8:5:6::2'),
        viaProxy('10.0.0.1', '2001:db8:5:6:aaaa::3'),
        viaProxy('2001:db8:ffff::1', '2001:db8:5:6::4'),
      ]),
    ).toEqual([2, 1, 0, 'limited']);
    // 2001:db8:fffe::/48 is not trusted: its X-Forwarded-For is ignored
    expect(await sequence([from('2001:db8:fffe::1', { 'X-Forwarded-For': '2001:db8:5:6::9' })])).toEqual([2]);
  });
});

describe('what counts against the keyless window', () => {
  it('invalid requests (400) and unauthorized dated conversions (401) do not', async () => {
    const client = from('203.0.113.40');
    expectError(await t.json('/convert?from=XYZ&to=EUR&amount=10', client), 400, 'bad_request');
    expectError(await t.json('/convert?from=USD&to=TWI&amount=10', client), 400, 'bad_request');
    expectError(await t.json('/convert?from=USD&to=EUR&amount=-5', client), 400, 'bad_request');
    expectError(await t.json('/convert?from=USD&to=EUR', client), 400, 'bad_request');
    expectError(await t.json('/convert?from=USD&to=EUR&amount=10&date=2026-05-08', client), 401, 'unauthorized');
    expect(await sequence([client, client, client, client])).toEqual([2, 1, 0, 'limited']);
  });

  it('keyed requests from the same client do not, and are not limited by it', async () => {
    const client = from('203.0.113.41');
    const { key } = await account(t, 'starter');
    for (let i = 0; i < 5; i++) {
      const res = await t.json(CONVERT, { ...client, key });
      expect(res.status).toBe(200);
      expect(res.body).not.toHaveProperty('free');
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
      expect(res.headers.get('x-ratelimit-remaining')).toBeNull();
    }
    expect(await sequence([client, client, client, client])).toEqual([2, 1, 0, 'limited']);
    // an exhausted keyless window does not stop the same client's keyed requests
    expect((await t.json(CONVERT, { ...client, key })).status).toBe(200);
  });

  it('requests refused with 403 https_required do not', async () => {
    const address = '203.0.113.42';
    for (let i = 0; i < 4; i++) expectError(await t.json(CONVERT, { remote: { address } }), 403, 'https_required');
    expect(await remaining(from(address))).toBe(2);
  });
});

describe('concurrency', () => {
  it('20 simultaneous keyless requests from one client: exactly 3 are served', async () => {
    const client = from('203.0.113.50');
    const answers = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const res = await t.request(CONVERT, client);
        return { status: res.status, remaining: res.headers.get('x-ratelimit-remaining'), body: await res.json() };
      }),
    );
    const ok = answers.filter((a) => a.status === 200);
    expect(ok).toHaveLength(3);
    expect(ok.map((a) => a.remaining).sort()).toEqual(['0', '1', '2']);
    const limited = answers.filter((a) => a.status === 429);
    expect(limited).toHaveLength(17);
    for (const a of limited) {
      expect(a.remaining).toBe('0');
      expect(a.body).toEqual({ success: false, error: { code: 429, type: 'rate_limit_exceeded', info: 'Rate limit exceeded. Try again in 3600 seconds.' } });
    }
  });

  it('20 simultaneous requests from 20 clients of one /64 and 5 from another: 3 + 3', async () => {
    const answers = await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => t.request(CONVERT, from(`2001:db8:77:1::${(i + 1).toString(16)}`))),
      ...Array.from({ length: 5 }, (_, i) => t.request(CONVERT, from(`2001:db8:77:2::${i + 1}`))),
    ]);
    expect(answers.slice(0, 20).filter((r) => r.status === 200)).toHaveLength(3);
    expect(answers.slice(20).filter((r) => r.status === 200)).toHaveLength(3);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(19);
  });
});
