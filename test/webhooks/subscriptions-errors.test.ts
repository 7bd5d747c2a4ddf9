// Refusals on the webhook subscription endpoints (docs/api.md §4.2, §5, §7; D11, D12, D26 in
// docs/decisions.md): methods (405 with Allow), keys (401 invalid_api_key even when none is sent,
// account_suspended), the create body and its url, currencies and description (400), plans (403),
// and the order between them:
// 405 → 401 → 400 → 403 → 404.
// Host names reach an injected resolver only: nothing here looks up a real name.
import { randomBytes, randomUUID } from 'node:crypto';
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/domain/plans.js';
import { LISTENER_LIMITS } from '../../src/http/limits.js';
import { createListener } from '../../src/http/server.js';
import { type TestApp, appForFile } from '../support/app.js';
import { expectError } from '../support/expect.js';
import { tableResolver } from '../support/dns.js';
import { graphql } from '../../src/graphql.js';

const PATH = '/api/webhook-subscriptions';
const PUBLIC = '93.184.216.34';
const DNS: Record<string, string[]> = {
  'hooks.example.com': [PUBLIC],
  'private.example.com': ['10.1.2.3'],
  'loopback.example.com': ['127.0.0.1'],
  'v6-loopback.example.com': ['::1'],
  'link-local.example.com': ['169.254.169.254'],
  'cgnat.example.com': ['100.64.0.1'],
  'ula.example.com': ['fd00::1'],
  'mapped.example.com': ['::ffff:192.168.0.1'],
  'mixed.example.com': [PUBLIC, '10.0.0.1'],
  'empty.example.com': [],
  // local names that DO resolve to a public address: they must be refused by name, not by address
  'api.localhost': [PUBLIC],
  localhost: [PUBLIC],
  'printer.local': [PUBLIC],
  'metadata.google.internal': [PUBLIC],
  'svc.internal': [PUBLIC],
};
/** Every name the service asked about. (`asked`) */
const { resolve, asked } = tableResolver(DNS);

const SET_STATUS = graphql('mutation($e: EmailAddress!, $s: AccountStatus!) { setAccountStatus(email: $e, status: $s) { status } }');
const REVOKE = graphql('mutation($p: Text!) { revokeApiKey(prefix: $p) { id } }');
const ID56 = 'Ab3'.repeat(18) + 'xy'; // 56 characters of [A-Za-z0-9]
const JSON_TYPE = { 'Content-Type': 'application/json' };
const VALID = { url: 'https://hooks.example.com/rates' };

const t = appForFile({ webhookNetwork: { resolve } });

async function account(plan: Plan = 'professional'): Promise<{ key: string; email: string }> {
  const email = `errors-${plan}-${randomUUID()}@example.test`;
  return { key: await t.createKey(plan, email), email };
}

const post = (key: string | undefined, body: unknown, headers: Record<string, string> = JSON_TYPE) =>
  t.json(PATH, { ...(key ? { key } : {}), method: 'POST', headers, body });
const list = (key: string) => t.json(PATH, { key });
const allowOf = (headers: Headers) =>
  (headers.get('allow') ?? '')
    .split(',')
    .map((m) => m.trim())
    .sort();

async function subscribe(key: string): Promise<string> {
  const res = await post(key, { url: `https://hooks.example.com/${randomUUID()}` });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.subscription.id;
}

describe('methods (405 with Allow, OPTIONS 204)', () => {
  const id = randomBytes(16).toString('hex');
  const paths: [string, string, string[], string[]][] = [
    ['the collection', PATH, ['GET', 'HEAD', 'OPTIONS', 'POST'], ['PUT', 'DELETE', 'PATCH']],
    ['one subscription', `${PATH}/${id}`, ['DELETE', 'OPTIONS', 'PATCH'], ['GET', 'HEAD', 'POST', 'PUT']],
    ['its test action', `${PATH}/${id}/test`, ['OPTIONS', 'POST'], ['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH']],
  ];

  for (const [what, path, allowed, refused] of paths) {
    it.each(refused)(`%s on ${what} is 405 method_not_allowed with Allow: ${allowed.join(', ')}`, async (method) => {
      const res = await t.request(path, { method });
      expect(res.status).toBe(405);
      expect(allowOf(res.headers)).toEqual(allowed);
      if (method !== 'HEAD') {
        const body = await res.json();
        expect(body).toEqual({ success: false, error: { code: 405, type: 'method_not_allowed', info: expect.any(String) } });
      }
    });

    it(`OPTIONS on ${what} is 204 with Allow, with or without a key`, async () => {
      const { key } = await account();
      for (const options of [{}, { key }]) {
        const res = await t.request(path, { method: 'OPTIONS', ...options });
        expect(res.status).toBe(204);
        expect(allowOf(res.headers)).toEqual(allowed);
        expect(await res.text()).toBe('');
      }
    });
  }

  it('405 comes before 401: no key, a bad key', async () => {
    expectError(await t.json(PATH, { method: 'PUT' }), 405, 'method_not_allowed');
    expectError(await t.json(PATH, { method: 'PUT', headers: { Authorization: 'Bearer abc' } }), 405, 'method_not_allowed');
    expectError(await t.json(`${PATH}/${id}/test`, { method: 'GET' }), 405, 'method_not_allowed');
    expectError(await t.json(`${PATH}/${id}`, { method: 'GET', headers: { Authorization: `Bearer sydney_${ID56}` } }), 405, 'method_not_allowed');
  });

  it('a path below the endpoints that does not exist is 404', async () => {
    const { key } = await account();
    expectError(await t.json(`${PATH}/${id}/test/again`, { key, method: 'POST' }), 404, 'not_found');
    expectError(await t.json(`${PATH}/${id}/retry`, { key, method: 'POST' }), 404, 'not_found');
  });
});

describe('keys (401)', () => {
  type Call = (id: string, authorization?: string) => ReturnType<TestApp['json']>;
  const headers = (authorization?: string, extra: Record<string, string> = {}) => ({ ...extra, ...(authorization ? { Authorization: authorization } : {}) });
  const calls: [string, Call][] = [
    ['POST create', (_id, a) => t.json(PATH, { method: 'POST', headers: headers(a, JSON_TYPE), body: VALID })],
    ['GET list', (_id, a) => t.json(PATH, { headers: headers(a) })],
    ['DELETE', (id, a) => t.json(`${PATH}/${id}`, { method: 'DELETE', headers: headers(a) })],
    ['PATCH', (id, a) => t.json(`${PATH}/${id}`, { method: 'PATCH', headers: headers(a, JSON_TYPE), body: { isActive: false } })],
    ['POST test', (id, a) => t.json(`${PATH}/${id}/test`, { method: 'POST', headers: headers(a) })],
  ];

  let owner: { key: string; email: string };
  let id: string;
  beforeAll(async () => {
    owner = await account();
    id = await subscribe(owner.key);
  });

  it.each(calls)('%s without a key: 401 invalid_api_key (D12), with WWW-Authenticate: Bearer', async (_what, call) => {
    const res = await call(id);
    expectError(res, 401, 'invalid_api_key');
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  const bad: [string, string][] = [
    ['a malformed key', 'Bearer abc'],
    ['an empty Bearer', 'Bearer'],
    ['another scheme', `Basic ${Buffer.from('user:pass').toString('base64')}`],
    ['an unknown, well-shaped key', `Bearer sydney_${ID56}`],
  ];
  for (const [what, call] of calls) {
    it.each(bad)(`${what} with %s: 401 invalid_api_key`, async (_kind, authorization) => {
      expectError(await call(id, authorization), 401, 'invalid_api_key');
    });
  }

  it('a mistyped key (one character changed) is 401 invalid_api_key everywhere', async () => {
    const last = owner.key.at(-1) === 'A' ? 'B' : 'A';
    const mistyped = `Bearer ${owner.key.slice(0, -1)}${last}`;
    for (const [, call] of calls) expectError(await call(id, mistyped), 401, 'invalid_api_key');
  });

  it('a revoked key is 401 invalid_api_key everywhere, and its subscription is left alone', async () => {
    const { key, email } = await account();
    const mine = await subscribe(key);
    expect((await t.operator(REVOKE, { p: key.split('_')[0]! })).errors).toBeUndefined();
    for (const [what, call] of calls) {
      const res = await call(mine, `Bearer ${key}`);
      expect(res.status, what).toBe(401);
      expectError(res, 401, 'invalid_api_key');
    }
    const fresh = await t.operator(graphql('mutation($e: EmailAddress!) { createApiKey(email: $e) { key } }'), { e: email });
    expect(fresh.errors).toBeUndefined();
    expect((await list(fresh.data!.createApiKey.key)).body.subscriptions.map((s: { id: string }) => s.id)).toEqual([mine]);
  });

  it('a suspended account is 401 account_suspended everywhere; reinstated, it finds its subscription again', async () => {
    const { key, email } = await account();
    const mine = await subscribe(key);
    expect((await t.operator(SET_STATUS, { e: email, s: 'suspended' })).errors).toBeUndefined();
    for (const [what, call] of calls) {
      const res = await call(mine, `Bearer ${key}`);
      expect(res.status, what).toBe(401);
      expectError(res, 401, 'account_suspended', /suspended/);
    }
    expect((await t.operator(SET_STATUS, { e: email, s: 'active' })).errors).toBeUndefined();
    const listed = await list(key);
    expect(listed.status).toBe(200);
    expect(listed.body.subscriptions.map((s: { id: string }) => s.id)).toEqual([mine]);
  });

  it('401 comes before 400 and 404 (D11)', async () => {
    expectError(await t.json(PATH, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'not json' }), 401, 'invalid_api_key');
    expectError(await t.json(PATH, { method: 'POST', headers: JSON_TYPE, body: { url: 'http://x', nope: 1 } }), 401, 'invalid_api_key');
    expectError(
      await t.json(PATH, { method: 'POST', headers: { ...JSON_TYPE, Authorization: 'Bearer abc' }, body: { url: 'http://x' } }),
      401,
      'invalid_api_key',
    );
    expectError(await t.json(`${PATH}?page=1`), 401, 'invalid_api_key');
    expectError(await t.json(`${PATH}/${randomBytes(16).toString('hex')}`, { method: 'DELETE' }), 401, 'invalid_api_key');
    expectError(await t.json(`${PATH}/not-an-id`, { method: 'DELETE' }), 401, 'invalid_api_key');
    expectError(await t.json(`${PATH}/not-an-id`, { method: 'PATCH', headers: JSON_TYPE, body: { isActive: 'x' } }), 401, 'invalid_api_key');
    expectError(await t.json(`${PATH}/not-an-id/test`, { method: 'POST' }), 401, 'invalid_api_key');
  });

  it('an oversized body without a key is 401, not 400', async () => {
    const body = JSON.stringify({ url: 'https://hooks.example.com/', description: 'x'.repeat(20_000) });
    expectError(await t.json(PATH, { method: 'POST', headers: JSON_TYPE, body }), 401, 'invalid_api_key');
  });
});

describe('the create body (400 bad_request)', () => {
  let key: string;
  beforeAll(async () => {
    ({ key } = await account('professional'));
  });
  /** Nothing was stored by the refusals (checked after each). */
  const expectNothingStored = async () => expect((await list(key)).body.subscriptions).toEqual([]);

  it('no Content-Type at all', async () => {
    // A string body would get text/plain from fetch; a Blob without a type sends no Content-Type.
    const response = await t.app.web.fetch(`http://rates.test${PATH}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}` },
      body: new Blob([JSON.stringify(VALID)]),
    });
    const body = await response.json();
    expectError({ status: response.status, body, headers: response.headers }, 400, 'bad_request', /Content-Type|JSON/i);
    await expectNothingStored();
  });

  it.each([
    ['text/plain', { 'Content-Type': 'text/plain' }],
    ['a form', { 'Content-Type': 'application/x-www-form-urlencoded' }],
    ['multipart', { 'Content-Type': 'multipart/form-data; boundary=x' }],
    ['a JSON-like other type', { 'Content-Type': 'application/json-patch+json' }],
    ['text/json', { 'Content-Type': 'text/json' }],
  ])('a Content-Type other than application/json: %s', async (_what, headers) => {
    const res = await post(key, JSON.stringify(VALID), headers);
    expectError(res, 400, 'bad_request', /Content-Type|JSON/i);
    await expectNothingStored();
  });

  it.each([
    ['an empty body', ''],
    ['truncated JSON', '{"url": "https://hooks.example.com/'],
    ['single quotes', "{'url': 'https://hooks.example.com/'}"],
    ['a trailing comma', '{"url": "https://hooks.example.com/",}'],
    ['two objects', '{"url": "https://hooks.example.com/"}{}'],
  ])('malformed JSON: %s', async (_what, body) => {
    expectError(await post(key, body), 400, 'bad_request', /JSON/);
    await expectNothingStored();
  });

  it.each([
    ['null', 'null'],
    ['an array', '[{"url": "https://hooks.example.com/"}]'],
    ['a string', '"https://hooks.example.com/"'],
    ['a number', '42'],
    ['true', 'true'],
  ])('JSON that is not an object: %s', async (_what, body) => {
    expectError(await post(key, body), 400, 'bad_request', /object/);
    await expectNothingStored();
  });

  it.each([
    ['signingSecret', { ...VALID, signingSecret: 'whsec_mine' }],
    ['isActive', { ...VALID, isActive: false }],
    ['id', { ...VALID, id: 'a'.repeat(32) }],
    ['a differently-cased field', { URL: VALID.url }],
    ['events', { ...VALID, events: ['rates.published'] }],
    ['an unknown null field', { ...VALID, extra: null }],
  ])('an unknown field: %s', async (_what, body) => {
    expectError(await post(key, body), 400, 'bad_request', /field/i);
    await expectNothingStored();
  });

  it('a body over 16 KiB (16385 bytes of otherwise valid JSON)', async () => {
    const json = JSON.stringify(VALID);
    const body = json + ' '.repeat(16385 - Buffer.byteLength(json));
    expect(Buffer.byteLength(body)).toBe(16385);
    expectError(await post(key, body), 400, 'bad_request', /large|16384|16 KiB/i);
    await expectNothingStored();
  });

  it('a body of 1 MiB', async () => {
    const body = JSON.stringify({ ...VALID, description: 'x'.repeat(1024 * 1024) });
    expectError(await post(key, body), 400, 'bad_request');
    await expectNothingStored();
  });

  it('an unknown query parameter', async () => {
    expectError(await t.json(`${PATH}?url=https://hooks.example.com/`, { key, method: 'POST', headers: JSON_TYPE, body: VALID }), 400, 'bad_request');
    await expectNothingStored();
  });
});

describe('the url (400 bad_request)', () => {
  let key: string;
  beforeAll(async () => {
    ({ key } = await account('business'));
  });
  const expectNothingStored = async () => expect((await list(key)).body.subscriptions).toEqual([]);
  const refused = async (body: unknown, info?: RegExp) => {
    const res = await post(key, body);
    expectError(res, 400, 'bad_request', info);
    await expectNothingStored();
    return res;
  };

  it.each([
    ['left out', {}],
    ['left out beside currencies', { currencies: ['USD'] }],
    ['null', { url: null }],
  ])('missing: %s', async (_what, body) => {
    await refused(body, /url/);
  });

  it.each([
    ['a number', 42],
    ['an array', ['https://hooks.example.com/']],
    ['an object', { href: 'https://hooks.example.com/' }],
    ['true', true],
  ])('not a string: %s', async (_what, url) => {
    await refused({ url }, /url/);
  });

  it.each([
    ['empty', ''],
    ['no scheme', 'hooks.example.com/rates'],
    ['relative', '/rates'],
    ['http', 'http://hooks.example.com/rates'],
    ['HTTP in capitals', 'HTTP://hooks.example.com/rates'],
    ['ftp', 'ftp://hooks.example.com/rates'],
    ['wss', 'wss://hooks.example.com/rates'],
    ['javascript', 'javascript:alert(1)'],
    ['data', 'data:text/plain,hello'],
    ['https without a host', 'https://'],
    ['a malformed host', 'https://hooks..example..com:99999/'],
  ])('not an absolute https URL: %s', async (_what, url) => {
    await refused({ url }, /url/);
  });

  it('longer than 2048 characters (2049)', async () => {
    const prefix = 'https://hooks.example.com/';
    const url = prefix + 'a'.repeat(2049 - prefix.length);
    expect(url).toHaveLength(2049);
    await refused({ url }, /2048/);
  });

  it.each([
    ['user and password', 'https://user:pass@hooks.example.com/rates'],
    ['a user', 'https://user@hooks.example.com/rates'],
    ['a password only', 'https://:secret@hooks.example.com/rates'],
  ])('with user-info: %s', async (_what, url) => {
    await refused({ url });
  });

  it.each([
    ['localhost', 'https://localhost/rates'],
    ['LOCALHOST with a port', 'https://LOCALHOST:8443/rates'],
    ['localhost with a trailing dot', 'https://localhost./rates'],
    ['*.localhost', 'https://api.localhost/rates'],
    ['*.local', 'https://printer.local/rates'],
    ['*.internal', 'https://metadata.google.internal/computeMetadata/v1/'],
    ['*.internal with a trailing dot', 'https://svc.internal./rates'],
  ])('a local host name, even one that resolves to a public address: %s', async (_what, url) => {
    asked.length = 0;
    await refused({ url });
    expect(asked.filter((name) => /localhost|\.local$|internal/i.test(name))).toEqual([]);
  });

  it.each([
    ['loopback', 'https://127.0.0.1/'],
    ['loopback, elsewhere in 127/8', 'https://127.255.255.254:8443/'],
    ['IPv6 loopback', 'https://[::1]/'],
    ['private 10/8', 'https://10.0.0.1/'],
    ['private 172.16/12', 'https://172.16.0.1/'],
    ['private 192.168/16', 'https://192.168.1.1/'],
    ['link-local (cloud metadata)', 'https://169.254.169.254/latest/meta-data/'],
    ['CGNAT 100.64/10', 'https://100.64.0.1/'],
    ['unspecified', 'https://0.0.0.0/'],
    ['broadcast', 'https://255.255.255.255/'],
    ['multicast', 'https://224.0.0.1/'],
    ['reserved 240/4', 'https://240.0.0.1/'],
    ['documentation 192.0.2/24', 'https://192.0.2.1/'],
    ['benchmarking 198.18/15', 'https://198.18.0.1/'],
    ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/'],
    ['IPv4-mapped private', 'https://[::ffff:10.0.0.1]/'],
    ['a decimal integer host (127.0.0.1)', 'https://2130706433/'],
    ['an octal dotted host (127.0.0.1)', 'https://0177.0.0.1/'],
    ['an octal integer host (127.0.0.1)', 'https://017700000001/'],
    ['a hex dotted host (127.0.0.1)', 'https://0x7f.0.0.1/'],
    ['a short form (127.1)', 'https://127.1/'],
    ['an octal private host (10.0.0.1)', 'https://012.0.0.1/'],
    ['IPv6 unspecified', 'https://[::]/'],
    ['IPv6 link-local', 'https://[fe80::1]/'],
    ['IPv6 unique local', 'https://[fd12:3456::1]/'],
    ['IPv6 multicast', 'https://[ff02::1]/'],
    ['IPv6 documentation', 'https://[2001:db8::1]/'],
    ['NAT64 of a private address', 'https://[64:ff9b::a00:1]/'],
    ['6to4 of a private address', 'https://[2002:a00:1::]/'],
  ])('an IP literal that is not public: %s', async (_what, url) => {
    await refused({ url }, /public/);
  });

  it.each([
    ['private.example.com', 'a private address'],
    ['loopback.example.com', 'loopback'],
    ['v6-loopback.example.com', 'IPv6 loopback'],
    ['link-local.example.com', 'the metadata address'],
    ['cgnat.example.com', 'CGNAT'],
    ['ula.example.com', 'an IPv6 unique local address'],
    ['mapped.example.com', 'an IPv4-mapped private address'],
    ['mixed.example.com', 'a public and a private address'],
  ])('a name that resolves to a non-public address: %s (%s)', async (host) => {
    const res = await refused({ url: `https://${host}/rates` }, /public/);
    // the message names the host and the rule, never the address it resolved to
    for (const address of DNS[host]!) if (address !== PUBLIC) expect(res.body.error.info).not.toContain(address);
  });

  it.each([
    ['nowhere.example.com', 'not found'],
    ['empty.example.com', 'no addresses'],
  ])('a name that does not resolve: %s (%s)', async (host) => {
    await refused({ url: `https://${host}/rates` }, /resolve/);
  });
});

describe('currencies and description (400 bad_request)', () => {
  let key: string;
  beforeAll(async () => {
    ({ key } = await account('business'));
  });
  const refused = async (body: Record<string, unknown>, info?: RegExp) => {
    expectError(await post(key, { ...VALID, ...body }), 400, 'bad_request', info);
    expect((await list(key)).body.subscriptions).toEqual([]);
  };

  it.each([
    ['an empty array', []],
    ['a string', 'USD'],
    ['a comma-separated string', 'USD,EUR'],
    ['an object', { USD: true }],
    ['true', true],
    ['a number item', [1]],
    ['a null item', ['USD', null]],
    ['an array item', [['USD']]],
    ['an unknown code', ['XYZ']],
    ['a two-letter code', ['US']],
    ['a four-letter code', ['USDX']],
    ['an empty code', ['']],
    ['AUD, the base', ['AUD']],
    ['aud in lower case', ['aud']],
    ['AUD among others', ['USD', 'AUD']],
    ['a duplicate', ['USD', 'USD']],
    ['a duplicate in another case', ['USD', 'usd']],
  ])('currencies: %s', async (_what, currencies) => {
    await refused({ currencies }, /currenc/i);
  });

  it.each([
    ['201 characters', 'x'.repeat(201)],
    ['201 non-ASCII characters', 'é'.repeat(201)],
    ['a number', 7],
    ['an array', ['label']],
    ['an object', { text: 'label' }],
    ['true', true],
  ])('description: %s', async (_what, description) => {
    await refused({ description }, /description/);
  });
});

describe('plans (403) and the order of checks (D11)', () => {
  it.each(['free', 'starter'] as const)('%s: a valid request is 403 webhooks_not_available', async (plan) => {
    const { key } = await account(plan);
    expectError(await post(key, VALID), 403, 'webhooks_not_available');
  });

  it.each(['free', 'starter'] as const)("%s: the request's own faults are 400 before the plan's 403", async (plan) => {
    const { key } = await account(plan);
    expectError(await post(key, { url: 'http://hooks.example.com/' }), 400, 'bad_request');
    expectError(await post(key, { url: 'https://127.0.0.1/' }), 400, 'bad_request');
    expectError(await post(key, { url: 'https://api.localhost/' }), 400, 'bad_request');
    expectError(await post(key, { ...VALID, currencies: ['AUD'] }), 400, 'bad_request');
    expectError(await post(key, { ...VALID, description: 'x'.repeat(201) }), 400, 'bad_request');
    expectError(await post(key, { ...VALID, extra: 1 }), 400, 'bad_request');
    expectError(await post(key, '{"url":'), 400, 'bad_request');
    expectError(await post(key, VALID, { 'Content-Type': 'text/plain' }), 400, 'bad_request');
  });

  // D26 makes resolving only to public addresses a rule of the url, and D11 puts the url's 400
  // before the plan's 403.
  it.each(['free', 'starter'] as const)("%s: a url whose host does not resolve or resolves privately is 400, before the plan's 403", async (plan) => {
    const { key } = await account(plan);
    expectError(await post(key, { url: 'https://nowhere.example.com/' }), 400, 'bad_request');
    expectError(await post(key, { url: 'https://private.example.com/' }), 400, 'bad_request');
  });

  it("at the plan's limit, faults of the request are 400 before subscription_limit_reached", async () => {
    const { key } = await account('professional');
    for (let i = 0; i < 3; i++) await subscribe(key);
    expectError(await post(key, { url: 'http://hooks.example.com/' }), 400, 'bad_request');
    expectError(await post(key, { ...VALID, currencies: [] }), 400, 'bad_request');
    expectError(await post(key, { url: 'https://nowhere.example.com/' }), 400, 'bad_request');
    expectError(await post(key, { url: 'https://private.example.com/' }), 400, 'bad_request');
    expectError(await post(key, VALID), 403, 'subscription_limit_reached');
  });

  it('every error uses the envelope of docs/api.md §7 and is not cacheable', async () => {
    const { key } = await account();
    const res = await post(key, { url: 'http://hooks.example.com/' });
    expectError(res, 400, 'bad_request');
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
});

describe("over a real socket (the service's listener)", () => {
  let server: Server;
  let port: number;
  let key: string;
  beforeAll(async () => {
    ({ key } = await account('professional'));
    server = createListener(t.app.web, { limits: LISTENER_LIMITS, logger: t.app.logger });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
  });

  /** A POST over plain HTTP from loopback (allowed, D20); the answer, or the socket error the client saw. */
  function send(body: string): Promise<{ status: number; body: any } | { error: string }> {
    return new Promise((resolve) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path: PATH,
          method: 'POST',
          headers: { ...JSON_TYPE, Authorization: `Bearer ${key}`, 'Content-Length': String(Buffer.byteLength(body)) },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : null }));
          res.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
        },
      );
      req.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
      req.end(body);
    });
  }

  it('a valid creation is 200', async () => {
    const answer = await send(JSON.stringify(VALID));
    expect(answer).toMatchObject({ status: 200, body: { success: true } });
  });

  it('a body of 16385 bytes is answered 400 bad_request', async () => {
    const json = JSON.stringify(VALID);
    const answer = await send(json + ' '.repeat(16385 - Buffer.byteLength(json)));
    expect(answer).toMatchObject({ status: 400, body: { success: false, error: { code: 400, type: 'bad_request' } } });
  });

  it('a body of 4 MiB is answered 400 bad_request, not a reset connection', async () => {
    const answer = await send(JSON.stringify({ ...VALID, description: 'x'.repeat(4 * 1024 * 1024) }));
    expect(answer).toMatchObject({ status: 400, body: { success: false, error: { code: 400, type: 'bad_request' } } });
  });
});
