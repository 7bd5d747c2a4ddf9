// Where a webhook may point (D26, D30, D34 in docs/decisions.md): the URL rules, the address
// classification and the resolution of a name, always through an injected resolver (nothing here
// leaves this machine).
import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../src/errors.js';
import { isPublicAddress, parseWebhookUrl, resolveWebhookTarget, type Resolver, type TargetPolicy } from '../../src/webhooks/target.js';
import { tableResolver } from '../support/dns.js';

const PUBLIC = '93.184.216.34';

function policy(resolve: Resolver, allowPrivate = false, resolveTimeoutMs = 1000): TargetPolicy {
  return { allowPrivate, resolve, resolveTimeoutMs };
}
const answering = (answers: Record<string, string[]>): Resolver => tableResolver(answers).resolve;
const noResolver: Resolver = async (hostname) => {
  throw new Error(`the resolver must not be asked (asked for ${hostname})`);
};

function expectRefused(text: string, message: RegExp | string) {
  expect(() => parseWebhookUrl(text, false)).toThrow(BadRequestError);
  expect(() => parseWebhookUrl(text, false)).toThrow(message);
}

describe('parseWebhookUrl: syntax rules (apply with and without allowPrivate)', () => {
  it.each([
    ['http://example.com/hook', 'url must use https'],
    ['ftp://example.com/hook', 'url must use https'],
    ['//example.com/hook', 'url must be an absolute https URL'],
    ['/hook', 'url must be an absolute https URL'],
    ['example.com/hook', 'url must be an absolute https URL'],
    ['not a url', 'url must not contain spaces or control characters'],
    [' https://example.com/hook', 'url must not contain spaces or control characters'],
    ['https://exa\tmple.com/hook', 'url must not contain spaces or control characters'],
    ['https://user@example.com/hook', 'url must not contain a user name or password'],
    ['https://user:secret@example.com/hook', 'url must not contain a user name or password'],
    ['https://:secret@example.com/hook', 'url must not contain a user name or password'],
    [`https://example.com/${'a'.repeat(2048 - 'https://example.com/'.length + 1)}`, 'url must be at most 2048 characters'],
  ])('%s is refused: %s', (text, message) => {
    for (const allowPrivate of [false, true]) {
      expect(() => parseWebhookUrl(text, allowPrivate)).toThrow(BadRequestError);
      expect(() => parseWebhookUrl(text, allowPrivate)).toThrow(message);
    }
  });

  it('exactly 2048 characters is accepted', () => {
    const text = `https://example.com/${'a'.repeat(2048 - 'https://example.com/'.length)}`;
    expect(text).toHaveLength(2048);
    expect(parseWebhookUrl(text, false).hostname).toBe('example.com');
  });

  it('a plain public https URL is accepted and returned parsed', () => {
    const url = parseWebhookUrl('https://Hooks.Example.com:8443/in?x=1', false);
    expect(url.hostname).toBe('hooks.example.com');
    expect(url.port).toBe('8443');
    expect(url.href).toBe('https://hooks.example.com:8443/in?x=1');
  });
});

describe('parseWebhookUrl: local host names (D26)', () => {
  it.each([
    'localhost',
    'LOCALHOST',
    'localhost.',
    'localhost..',
    'foo.localhost',
    'a.b.localhost.',
    'printer.local',
    'PRINTER.LOCAL.',
    'db.internal',
    'metadata.google.internal',
    'localhost%2E',
  ])('https://%s/hook is refused', (host) => expectRefused(`https://${host}/hook`, /is a local name/));

  it.each(['localhostx.com', 'mylocal.com', 'internal.example.com', 'local.example.com', 'example.localhost.com'])('https://%s/hook is accepted', (host) => {
    expect(parseWebhookUrl(`https://${host}/hook`, false).hostname).toBe(host);
  });
});

describe('parseWebhookUrl: IP literals must be public (D26)', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.1.2.3', 'loopback'],
    ['[::1]', 'IPv6 loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['100.64.0.1', 'CGNAT'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.1', 'documentation'],
    ['[::]', 'IPv6 unspecified'],
    ['[::ffff:127.0.0.1]', 'IPv4-mapped loopback'],
    ['[::ffff:10.0.0.1]', 'IPv4-mapped private'],
    ['[::127.0.0.1]', 'IPv4-compatible loopback'],
    ['[fc00::1]', 'unique local'],
    ['[fd12:3456::1]', 'unique local'],
    ['[fe80::1]', 'link-local'],
    ['[ff02::1]', 'multicast'],
    ['[2002:7f00:1::1]', '6to4 embedding 127.0.0.1'],
    ['[2002:a00:1::1]', '6to4 embedding 10.0.0.1'],
    ['[64:ff9b::a00:1]', 'NAT64 embedding 10.0.0.1'],
    ['[2001:0:4136:e378:8000:63bf:f5ff:fffe]', 'Teredo'],
    ['[2001:db8::1]', 'documentation'],
    // The URL parser turns all of these into 127.0.0.1.
    ['2130706433', 'decimal 127.0.0.1'],
    ['0x7f000001', 'hex 127.0.0.1'],
    ['0x7f.1', 'hex and short 127.0.0.1'],
    ['017700000001', 'octal 127.0.0.1'],
    ['0177.0.0.1', 'octal first part'],
    ['127.1', 'short 127.0.0.1'],
    ['127.0.0.1.', 'trailing dot'],
    ['0xa.0.0.1', 'hex 10.0.0.1'],
    ['3232235777', 'decimal 192.168.1.1'],
    ['0xA9FEA9FE', 'hex 169.254.169.254'],
  ])('https://%s/hook is refused (%s)', (host) => expectRefused(`https://${host}/hook`, /is not a public address/));

  it('the message names the normalised host and the rule', () => {
    expect(() => parseWebhookUrl('https://2130706433/hook', false)).toThrow('url host 127.0.0.1 is not a public address');
  });

  it.each([PUBLIC, '8.8.8.8', '[2606:2800:220:1:248:1893:25c8:1946]', '[::ffff:93.184.216.34]', '1558505506'])('https://%s/hook is accepted', (host) => {
    expect(() => parseWebhookUrl(`https://${host}/hook`, false)).not.toThrow();
  });
});

describe('isPublicAddress', () => {
  it.each([PUBLIC, '8.8.8.8', '1.1.1.1', '2606:2800:220:1:248:1893:25c8:1946', '::ffff:93.184.216.34', '[2001:4860:4860::8888]'])('%s is public', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.20.0.1',
    '192.168.0.1',
    '169.254.169.254',
    '100.100.100.100',
    '0.0.0.0',
    '224.0.0.251',
    '255.255.255.255',
    '::1',
    '::',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::7f00:1',
    'fc00::1',
    'fe80::1',
    'fe80::1%eth0',
    'ff02::1',
    '2002:c0a8:101::1',
    '64:ff9b::7f00:1',
    // Not canonical forms: a socket could read them otherwise than a classifier does.
    '127.1',
    '2130706433',
    '0x7f.0.0.1',
    'localhost',
    '',
    'nonsense',
  ])('%s is not public', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
});

describe('resolveWebhookTarget', () => {
  const url = (text: string) => new URL(text);

  it('a public IP literal resolves to itself without asking the resolver', async () => {
    await expect(resolveWebhookTarget(url(`https://${PUBLIC}/hook`), policy(noResolver))).resolves.toEqual([PUBLIC]);
    await expect(resolveWebhookTarget(url('https://[2606:2800:220:1:248:1893:25c8:1946]/hook'), policy(noResolver))).resolves.toEqual([
      '2606:2800:220:1:248:1893:25c8:1946',
    ]);
  });

  it('a name resolving only to public addresses gives those addresses', async () => {
    const resolve = answering({ 'hooks.example.com': [PUBLIC, '2606:2800:220:1:248:1893:25c8:1946'] });
    await expect(resolveWebhookTarget(url('https://hooks.example.com/hook'), policy(resolve))).resolves.toEqual([PUBLIC, '2606:2800:220:1:248:1893:25c8:1946']);
  });

  it('a trailing dot is not passed to the resolver', async () => {
    const asked: string[] = [];
    const resolve: Resolver = async (hostname) => (asked.push(hostname), [PUBLIC]);
    await expect(resolveWebhookTarget(url('https://hooks.example.com./hook'), policy(resolve))).resolves.toEqual([PUBLIC]);
    expect(asked).toEqual(['hooks.example.com']);
  });

  it.each([['127.0.0.1'], ['10.0.0.5'], ['169.254.169.254'], ['::1'], ['::ffff:192.168.0.1'], ['fd00::1']])(
    'a name resolving to %s is refused without naming the address',
    async (address) => {
      const error: unknown = await resolveWebhookTarget(url('https://hooks.example.com/hook'), policy(answering({ 'hooks.example.com': [address] }))).catch(
        (e: unknown) => e,
      );
      if (!(error instanceof BadRequestError)) throw new Error(`expected a BadRequestError, got ${String(error)}`);
      expect(error.message).toBe('url host hooks.example.com resolves to an address that is not public');
      expect(error.message).not.toContain(address);
    },
  );

  it('a name with one public and one private address is refused', async () => {
    const resolve = answering({ 'hooks.example.com': [PUBLIC, '10.0.0.1'] });
    await expect(resolveWebhookTarget(url('https://hooks.example.com/hook'), policy(resolve))).rejects.toThrow(
      'url host hooks.example.com resolves to an address that is not public',
    );
  });

  it('a name that does not resolve (ENOTFOUND) is refused', async () => {
    await expect(resolveWebhookTarget(url('https://nowhere.example/hook'), policy(answering({})))).rejects.toThrow('url host nowhere.example does not resolve');
  });

  it('an empty or malformed answer is refused', async () => {
    await expect(resolveWebhookTarget(url('https://empty.example/hook'), policy(answering({ 'empty.example': [] })))).rejects.toThrow(
      'url host empty.example does not resolve',
    );
    await expect(resolveWebhookTarget(url('https://odd.example/hook'), policy(answering({ 'odd.example': [PUBLIC, 'not-an-ip'] })))).rejects.toThrow(
      'url host odd.example does not resolve',
    );
  });

  it('a resolver that never answers is refused after the timeout', async () => {
    const started = Date.now();
    const never: Resolver = () => new Promise<string[]>(() => {});
    await expect(resolveWebhookTarget(url('https://slow.example/hook'), policy(never, false, 150))).rejects.toThrow(
      'url host slow.example did not resolve within 150 ms',
    );
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(140);
    expect(elapsed).toBeLessThan(1000);
  });

  it('a resolver that rejects after the timeout leaves no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      let rejected!: () => void;
      const lateRejection = new Promise<void>((resolve) => (rejected = resolve));
      const late: Resolver = () =>
        new Promise<string[]>((_, reject) =>
          setTimeout(() => {
            reject(new Error('late ENOTFOUND'));
            rejected();
          }, 100),
        );
      await expect(resolveWebhookTarget(url('https://late.example/hook'), policy(late, false, 20))).rejects.toThrow('did not resolve within 20 ms');
      await lateRejection;
      // an unhandled rejection is reported once the microtasks of the turn that rejected have run
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('the URL rules are applied again before resolving', async () => {
    await expect(resolveWebhookTarget(url('http://hooks.example.com/hook'), policy(noResolver))).rejects.toThrow('url must use https');
    await expect(resolveWebhookTarget(url('https://localhost/hook'), policy(noResolver))).rejects.toThrow('is a local name');
    await expect(resolveWebhookTarget(url('https://2130706433/hook'), policy(noResolver))).rejects.toThrow('is not a public address');
  });
});

describe('allowPrivate (D34)', () => {
  it('lifts the host-name and address rules', async () => {
    for (const text of [
      'https://localhost/hook',
      'https://printer.local/hook',
      'https://db.internal/hook',
      'https://127.0.0.1/hook',
      'https://[::1]/hook',
      'https://10.0.0.1/hook',
    ]) {
      expect(() => parseWebhookUrl(text, true)).not.toThrow();
    }
    await expect(resolveWebhookTarget(new URL('https://127.0.0.1:8443/hook'), policy(noResolver, true))).resolves.toEqual(['127.0.0.1']);
    await expect(resolveWebhookTarget(new URL('https://[::1]/hook'), policy(noResolver, true))).resolves.toEqual(['::1']);
    const resolve = answering({ 'receiver.test': ['127.0.0.1', PUBLIC], localhost: ['127.0.0.1', '::1'] });
    await expect(resolveWebhookTarget(new URL('https://receiver.test/hook'), policy(resolve, true))).resolves.toEqual(['127.0.0.1', PUBLIC]);
    await expect(resolveWebhookTarget(new URL('https://localhost/hook'), policy(resolve, true))).resolves.toEqual(['127.0.0.1', '::1']);
  });

  it('keeps https, user-info and length rules, and still needs an answer from the resolver', async () => {
    await expect(resolveWebhookTarget(new URL('http://127.0.0.1/hook'), policy(noResolver, true))).rejects.toThrow('url must use https');
    await expect(resolveWebhookTarget(new URL('https://a:b@127.0.0.1/hook'), policy(noResolver, true))).rejects.toThrow('user name or password');
    await expect(resolveWebhookTarget(new URL('https://nowhere.test/hook'), policy(answering({}), true))).rejects.toThrow('does not resolve');
  });
});
