// Unit tests of src/rest/client-address.ts (D19, D20 in docs/decisions.md): TRUST_PROXY parsing and
// who the client is.
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config.js';
import { identifyPeer, parseTrustedProxies } from '../../src/rest/client-address.js';

const describeRanges = (list: string) => parseTrustedProxies(list).map(([address, bits]) => `${address.toString()}/${bits}`);

describe('parseTrustedProxies', () => {
  it('reads addresses and CIDR ranges, comma-separated, blanks ignored', () => {
    expect(describeRanges('')).toEqual([]);
    expect(describeRanges(' , ,')).toEqual([]);
    expect(describeRanges('10.0.0.1')).toEqual(['10.0.0.1/32']);
    expect(describeRanges(' 10.0.0.0/8 , 192.168.1.1,2001:db8::/32, ::1 ,[2001:db8::5]')).toEqual([
      '10.0.0.0/8',
      '192.168.1.1/32',
      '2001:db8::/32',
      '::1/128',
      '2001:db8::5/128',
    ]);
    // an IPv4-mapped address is the IPv4 address
    expect(describeRanges('::ffff:10.1.2.3')).toEqual(['10.1.2.3/32']);
  });

  it.each(['nonsense', '10.0.0.256', 'localhost', '10.0.0.1:8080', '2001:db8::g'])('%s is refused, naming the entry', (entry) => {
    expect(() => parseTrustedProxies(`10.0.0.1, ${entry}`)).toThrow(`'${entry}' is not an IP address or CIDR range`);
  });

  it.each(['10.0.0.0/33', '10.0.0.0/', '/8', '10.0.0.0/8/8', '2001:db8::/129', 'nonsense/8'])('the range %s is refused', (entry) => {
    expect(() => parseTrustedProxies(entry)).toThrow();
  });

  it('a bad TRUST_PROXY is a configuration error (the service exits 2)', () => {
    expect(() => parseConfig({ TRUST_PROXY: '10.0.0.0/8, bogus' })).toThrow(ConfigError);
    expect(() => parseConfig({ TRUST_PROXY: '10.0.0.0/8, bogus' })).toThrow(/TRUST_PROXY: 'bogus' is not an IP address or CIDR range/);
    expect(parseConfig({ TRUST_PROXY: '10.0.0.0/8' }).TRUST_PROXY).toBe('10.0.0.0/8');
  });

  it('TLS_CERT_FILE and TLS_KEY_FILE go together', () => {
    expect(() => parseConfig({ TLS_CERT_FILE: '/c.pem' })).toThrow(/TLS_CERT_FILE and TLS_KEY_FILE go together/);
    expect(() => parseConfig({ TLS_KEY_FILE: '/k.pem' })).toThrow(/TLS_CERT_FILE and TLS_KEY_FILE go together/);
    expect(parseConfig({ TLS_CERT_FILE: '/c.pem', TLS_KEY_FILE: '/k.pem' })).toMatchObject({ TLS_CERT_FILE: '/c.pem', TLS_KEY_FILE: '/k.pem' });
    // empty means unset
    expect(parseConfig({ TLS_CERT_FILE: '', TLS_KEY_FILE: '' }).TLS_CERT_FILE).toBeUndefined();
  });
});

describe('identifyPeer', () => {
  const none = parseTrustedProxies('');
  const proxies = parseTrustedProxies('10.0.0.0/8, 192.0.2.1, 2001:db8:ffff::/48');

  it('no socket address (the app called directly) is this machine', () => {
    expect(identifyPeer(undefined, null, none)).toMatchObject({ client: '127.0.0.1', socketLoopback: true, viaTrustedProxy: false });
  });

  it.each([
    ['127.0.0.1', '127.0.0.1', true],
    ['127.8.9.10', '127.8.9.10', true],
    ['::1', '0:0:0:0::/64', true],
    ['::ffff:127.0.0.1', '127.0.0.1', true],
    ['203.0.113.5', '203.0.113.5', false],
    ['::ffff:203.0.113.5', '203.0.113.5', false],
    ['::ffff:cb00:7105', '203.0.113.5', false],
    ['2001:db8:1:2::5', '2001:db8:1:2::/64', false],
    ['2001:0db8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64', false],
    ['2001:db8::1', '2001:db8:0:0::/64', false],
    ['fd00::2', 'fd00:0:0:0::/64', false],
  ])('socket %s: client %s, loopback %s', (socket, client, loopback) => {
    expect(identifyPeer(socket, null, none)).toMatchObject({ client, socketLoopback: loopback, viaTrustedProxy: false });
  });

  it("keeps the client's whole address beside the /64 it is counted by (a key's allowed addresses are matched against it)", () => {
    expect(identifyPeer('2001:db8:1:2::5', null, none).address.toString()).toBe('2001:db8:1:2::5');
    expect(identifyPeer('::ffff:203.0.113.5', null, none).address.toString()).toBe('203.0.113.5');
    expect(identifyPeer('10.0.0.1', '2001:db8:5:6::2', proxies).address.toString()).toBe('2001:db8:5:6::2');
    expect(identifyPeer('203.0.113.5', '198.51.100.7', proxies).address.toString()).toBe('203.0.113.5');
  });

  it('addresses in one /64 are one client, in neighbouring /64s not', () => {
    const a = identifyPeer('2001:db8:1:2::5', null, none).client;
    expect(identifyPeer('2001:db8:1:2:abcd::1', null, none).client).toBe(a);
    expect(identifyPeer('2001:db8:1:3::5', null, none).client).not.toBe(a);
    expect(identifyPeer('2001:db8:1:1::5', null, none).client).not.toBe(a);
  });

  it('X-Forwarded-For from an untrusted peer is ignored', () => {
    expect(identifyPeer('203.0.113.5', '198.51.100.7', proxies)).toMatchObject({ client: '203.0.113.5', socketLoopback: false, viaTrustedProxy: false });
    expect(identifyPeer('127.0.0.1', '198.51.100.7', none)).toMatchObject({ client: '127.0.0.1', socketLoopback: true, viaTrustedProxy: false });
    expect(identifyPeer('192.0.2.2', '198.51.100.7', proxies).client).toBe('192.0.2.2');
  });

  it('from a trusted proxy the client is the rightmost hop that is not a trusted proxy', () => {
    expect(identifyPeer('10.0.0.1', '198.51.100.7', proxies)).toMatchObject({ client: '198.51.100.7', socketLoopback: false, viaTrustedProxy: true });
    expect(identifyPeer('10.0.0.1', '1.2.3.4, 198.51.100.7', proxies).client).toBe('198.51.100.7');
    expect(identifyPeer('10.0.0.1', '1.2.3.4,198.51.100.7, 10.0.0.2 ,192.0.2.1', proxies).client).toBe('198.51.100.7');
    expect(identifyPeer('::ffff:10.0.0.1', '::ffff:198.51.100.7', proxies).client).toBe('198.51.100.7');
    expect(identifyPeer('192.0.2.1', '2001:db8:5:6::1', proxies).client).toBe('2001:db8:5:6::/64');
    expect(identifyPeer('2001:db8:ffff:1::1', '[2001:db8:5:6::2]', proxies)).toMatchObject({
      client: '2001:db8:5:6::/64',
      socketLoopback: false,
      viaTrustedProxy: true,
    });
  });

  it('from a trusted proxy without X-Forwarded-For, or with only trusted hops, the client is the nearest of them', () => {
    expect(identifyPeer('10.0.0.1', null, proxies)).toMatchObject({ client: '10.0.0.1', socketLoopback: false, viaTrustedProxy: true });
    expect(identifyPeer('10.0.0.1', '10.0.0.7, 10.0.0.8', proxies).client).toBe('10.0.0.7');
  });

  it('an unreadable hop stops the walk: the hops to its right stand', () => {
    expect(identifyPeer('10.0.0.1', 'garbage, 198.51.100.7', proxies).client).toBe('198.51.100.7');
    expect(identifyPeer('10.0.0.1', '198.51.100.7, garbage', proxies).client).toBe('10.0.0.1');
    expect(identifyPeer('10.0.0.1', '', proxies).client).toBe('10.0.0.1');
  });

  it('a loopback proxy in TRUST_PROXY is trusted and loopback at once', () => {
    const local = parseTrustedProxies('127.0.0.1');
    expect(identifyPeer('127.0.0.1', '203.0.113.5', local)).toMatchObject({ client: '203.0.113.5', socketLoopback: true, viaTrustedProxy: true });
  });
});
