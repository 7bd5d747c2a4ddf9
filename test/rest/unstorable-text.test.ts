// Text that cannot be stored exactly (NUL, bytes that are not UTF-8, lone surrogates) is refused
// with 400 and the envelope of docs/api.md §7 before any database work, wherever it comes in: body
// fields, query parameters, path segments, header values and the internal GraphQL endpoint.
// Requests go over real sockets to the service's listeners and handlers, byte for byte as written
// here; the store is counted before and after each refusal. Valid text outside ASCII is stored and read
// back exactly.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createListener } from '../../src/http/server.js';
import { LISTENER_LIMITS } from '../../src/http/limits.js';
import { OPERATOR_TOKEN, startTestApp, type TestApp } from '../support/app.js';
import { tableResolver } from '../support/dns.js';
import { expectError } from '../support/expect.js';
import { exchange, expectEnvelope, parseResponses } from '../support/raw-http.js';

const SUBSCRIPTIONS = '/api/webhook-subscriptions';
const { resolve } = tableResolver({ 'hooks.example.com': ['93.184.216.34'] });
const EXACT = 'Zürich 東京 🚀';

let t: TestApp;
let publicPort: number;
let internalPort: number;
let key: string;
const servers: Server[] = [];

/** The service's own listener (limits, the parser's refusals in the envelope) around `handler`. */
async function listen(handler: Parameters<typeof createListener>[0]): Promise<number> {
  const server = createListener(handler, { limits: LISTENER_LIMITS, logger: pino({ level: 'silent' }) });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  t = await startTestApp({ webhookNetwork: { resolve } });
  await t.importFixture('f11.1-data.csv');
  key = await t.createKey('enterprise');
  publicPort = await listen(t.app.web);
  internalPort = await listen(t.app.internal);
});
afterAll(async () => {
  for (const server of servers) server.close();
  await t?.close();
});

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: any;
}

const bytesOf = (...parts: (string | number[] | Uint8Array)[]): Buffer =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'utf8') : Buffer.from(part))));

/** One request written byte for byte on a fresh connection, and its answer (a JSON body parsed). */
async function raw(port: number, request: Buffer): Promise<RawAnswer> {
  const [response] = parseResponses((await exchange(port, request)).received);
  if (!response) throw new Error(`no answer to ${JSON.stringify(request.toString('latin1'))}`);
  return { ...response, body: response.headers['content-type']?.startsWith('application/json') ? JSON.parse(response.body) : response.body };
}

/** A request with an optional body, `Connection: close`, to the public port. */
function send(method: string, target: string, options: { headers?: Record<string, string | Buffer>; body?: Buffer; port?: number } = {}) {
  const headers: Record<string, string | Buffer> = { Host: 'rates.test', Connection: 'close', ...options.headers };
  if (options.body) headers['Content-Length'] = String(options.body.length);
  const head = bytesOf(`${method} ${target} HTTP/1.1\r\n`);
  const lines = Object.entries(headers).map(([name, value]) => bytesOf(`${name}: `, value, '\r\n'));
  return raw(options.port ?? publicPort, Buffer.concat([head, ...lines, Buffer.from('\r\n'), options.body ?? Buffer.alloc(0)]));
}

const jsonPost = (target: string, body: Buffer, method = 'POST') =>
  send(method, target, { headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }, body });

/** Every row count a request could change, and the quota units taken. */
async function storeState() {
  const count = (table: 'publications' | 'rates' | 'accounts' | 'api_keys' | 'webhook_subscriptions' | 'webhook_deliveries' | 'free_convert_windows') =>
    t.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow()
      .then((r) => Number(r.n));
  const quota = await sql<{ used: string }>`select coalesce(sum(quota_used), 0) as used from accounts`.execute(t.db);
  return {
    publications: await count('publications'),
    rates: await count('rates'),
    accounts: await count('accounts'),
    api_keys: await count('api_keys'),
    webhook_subscriptions: await count('webhook_subscriptions'),
    webhook_deliveries: await count('webhook_deliveries'),
    free_convert_windows: await count('free_convert_windows'),
    quota_used: Number(quota.rows[0]!.used),
  };
}

/** Runs `request` and checks it was a 400 bad_request envelope whose info matches, and the store did not change. */
async function refusedUnchanged(request: () => Promise<RawAnswer>, info: RegExp): Promise<void> {
  const before = await storeState();
  const answer = await request();
  expectError({ status: answer.status, body: answer.body, headers: new Headers(answer.headers) }, 400, 'bad_request', info);
  expect(await storeState()).toEqual(before);
}

// The body of the example, with the description's bytes chosen by each case.
const subscriptionBody = (...description: (string | number[])[]) => bytesOf('{"url":"https://hooks.example.com/x","description":"', ...description, '"}');

const operation = (body: Buffer) =>
  send('POST', '/graphql', { port: internalPort, headers: { Authorization: `Bearer ${OPERATOR_TOKEN}`, 'Content-Type': 'application/json' }, body });
/** importRates of one old day (no publication), its source's bytes chosen by each case */
const importBody = (...source: (string | number[])[]) =>
  bytesOf(
    '{"query":"mutation($i: ImportRatesInput!) { importRates(input: $i) { days } }","variables":{"i":{"source":"',
    ...source,
    '","format":"csv","days":[{"date":"2019-07-01","rates":[{"code":"USD","value":"0.7"}]}]}}}',
  );

describe('body fields', () => {
  it.each<[string, Buffer, RegExp]>([
    ['a NUL escape in description (the issue’s case)', subscriptionBody('a\\u0000b'), /^Field 'description' contains NUL \(U\+0000\)/],
    ['a lone high surrogate escape', subscriptionBody('a\\ud800b'), /^Field 'description' contains a lone surrogate \(U\+D800\)/],
    ['a lone low surrogate escape', subscriptionBody('\\udc00'), /^Field 'description' contains a lone surrogate \(U\+DC00\)/],
    ['surrogates in the wrong order', subscriptionBody('\\ude80\\ud83d'), /^Field 'description' contains a lone surrogate/],
    ['invalid UTF-8 bytes (C3 28)', subscriptionBody('a', [0xc3, 0x28], 'b'), /^The request body is not valid UTF-8$/],
    ['a UTF-8-encoded surrogate (ED A0 80)', subscriptionBody([0xed, 0xa0, 0x80]), /^The request body is not valid UTF-8$/],
    ['an overlong NUL (C0 80)', subscriptionBody([0xc0, 0x80]), /^The request body is not valid UTF-8$/],
    ['a truncated sequence at the end (E6 9D)', bytesOf('{"url":"https://hooks.example.com/x"}', [0xe6, 0x9d]), /^The request body is not valid UTF-8$/],
    ['a NUL escape in url', bytesOf('{"url":"https://hooks.example.com/a\\u0000b"}'), /^Field 'url' contains NUL/],
    ['a NUL escape in a currency', bytesOf('{"url":"https://hooks.example.com/x","currencies":["USD","E\\u0000R"]}'), /^Field 'currencies\[1\]' contains NUL/],
    [
      'a NUL escape in a field name',
      bytesOf('{"url":"https://hooks.example.com/x","desc\\u0000":"x"}'),
      new RegExp(`^Unknown field 'desc${String.fromCharCode(0)}'`),
    ],
    [
      'a string 5,000 arrays deep (refused by its type, without recursion)',
      bytesOf('{"url":"https://hooks.example.com/x","currencies":[', '['.repeat(5000), '"\\ud800"', ']'.repeat(5000), ']}'),
      /^Field 'currencies' must be an array of strings$/,
    ],
  ])('POST %s: 400, nothing stored', async (_what, body, info) => {
    await refusedUnchanged(() => jsonPost(SUBSCRIPTIONS, body), info);
  });

  it('PATCH with a body that is not UTF-8: 400, the subscription unchanged', async () => {
    const created = await jsonPost(SUBSCRIPTIONS, bytesOf('{"url":"https://hooks.example.com/patch"}'));
    expect(created.status).toBe(200);
    const { id } = created.body.subscription;
    await refusedUnchanged(() => jsonPost(`${SUBSCRIPTIONS}/${id}`, bytesOf('{"isActive":false', [0xff], '}'), 'PATCH'), /not valid UTF-8/);
    const row = await t.db.selectFrom('webhook_subscriptions').select('is_active').where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.is_active).toBe(true);
  });
});

describe('query parameters (percent-decoded)', () => {
  const convert = (query: string) => send('GET', `/convert?${query}`);
  const latest = (query: string) => send('GET', `/latest?${query}`, { headers: { Authorization: `Bearer ${key}` } });

  it.each<[string, () => Promise<RawAnswer>, RegExp]>([
    ['%00 in a value', () => convert('from=USD%00&to=EUR&amount=1'), /^Parameter 'from' \('USD%00'\) contains NUL \(U\+0000\)$/],
    ['%C3%28 in a value', () => convert('from=USD&to=%C3%28&amount=1'), /^Parameter 'to' \('%C3%28'\) is not valid UTF-8$/],
    ['%ED%A0%80 (a surrogate) in a value', () => convert('from=USD&to=EUR&amount=%ED%A0%80'), /^Parameter 'amount' \('%ED%A0%80'\) is not valid UTF-8$/],
    ['%FF in a value', () => latest('symbols=%FF'), /^Parameter 'symbols' \('%FF'\) is not valid UTF-8$/],
    ['%00 in a keyed request', () => latest('symbols=USD,%00'), /^Parameter 'symbols' .* contains NUL/],
    ['%00 in a name', () => latest('%00=1'), /^A parameter name \('%00'\) contains NUL/],
    ['%C3%28 in a name', () => convert('from=USD&to=EUR&amount=1&%C3%28=1'), /^A parameter name \('%C3%28'\) is not valid UTF-8/],
    [
      '%00 on the webhook endpoint',
      () => jsonPost(`${SUBSCRIPTIONS}?note=%00`, bytesOf('{"url":"https://hooks.example.com/q"}')),
      /^Parameter 'note' .* contains NUL/,
    ],
  ])('%s: 400, nothing stored, no quota taken', async (_what, request, info) => {
    await refusedUnchanged(request, info);
  });

  it('a "+" is a space and a "%" without two hex digits is itself, as before', async () => {
    const answer = await convert('from=USD&to=EUR&amount=1%zz');
    expectError({ status: answer.status, body: answer.body, headers: new Headers(answer.headers) }, 400, 'bad_request', /^Invalid amount '1%zz'/);
    const spaced = await latest('symbols=USD,+EUR');
    expect(spaced.status).toBe(200);
    expect(Object.keys(spaced.body.rates)).toEqual(['USD', 'EUR']);
  });
});

describe('path segments', () => {
  it.each<[string, string, RegExp]>([
    ['%00 in a currency', '/latest/US%00', /^A path segment \('US%00'\) contains NUL/],
    ['%C3%28 in a currency', '/latest/%C3%28', /^A path segment \('%C3%28'\) is not valid UTF-8/],
    ['%ED%A0%80 in a date', '/2023-01-03/%ED%A0%80', /^A path segment \('%ED%A0%80'\) is not valid UTF-8/],
    ['%00 in an unknown path', '/%00', /contains NUL/],
  ])('%s: 400, nothing stored', async (_what, path, info) => {
    await refusedUnchanged(() => send('GET', path, { headers: { Authorization: `Bearer ${key}` } }), info);
  });

  it('DELETE of a subscription id with %00: 400, the subscription is still there', async () => {
    const created = await jsonPost(SUBSCRIPTIONS, bytesOf('{"url":"https://hooks.example.com/delete"}'));
    const { id } = created.body.subscription;
    await refusedUnchanged(() => send('DELETE', `${SUBSCRIPTIONS}/${id}%00`, { headers: { Authorization: `Bearer ${key}` } }), /contains NUL/);
    expect(await t.db.selectFrom('webhook_subscriptions').select('id').where('id', '=', id).executeTakeFirst()).toEqual({ id });
  });
});

describe('header values', () => {
  // Node's parser takes bytes 0x80–0xFF in a header value as Latin-1 characters; none of these
  // values is stored, and the request id is echoed only when it is plain ASCII.
  it('an X-Request-Id that is not UTF-8 is not echoed: the answer carries a new id', async () => {
    const answer = await send('GET', '/symbols', { headers: { 'X-Request-Id': bytesOf('id-', [0xc3, 0x28]) } });
    expect(answer.status).toBe(200);
    expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('User-Agent and Origin that are not UTF-8 change nothing: the request is answered', async () => {
    const before = await storeState();
    const answer = await send('GET', '/latest/USD', {
      headers: { Authorization: `Bearer ${key}`, 'User-Agent': bytesOf('agent ', [0xff, 0xfe]), Origin: bytesOf('https://', [0xed, 0xa0, 0x80]) },
    });
    expect(answer.status).toBe(200);
    const after = await storeState();
    expect({ ...after, quota_used: before.quota_used }).toEqual(before);
  });

  it('an Authorization value that is not UTF-8 is 401 invalid_api_key, without a lookup', async () => {
    const answer = await send('GET', '/latest', { headers: { Authorization: bytesOf(`Bearer ${key}`, [0xc3, 0x28]) } });
    expect(answer.status).toBe(401);
    expect(answer.body.error.type).toBe('invalid_api_key');
  });

  it('a NUL in a header value is refused by the HTTP parser (400 envelope) before the app sees it', async () => {
    const before = await storeState();
    const request = bytesOf('GET /symbols HTTP/1.1\r\nHost: rates.test\r\nUser-Agent: a', [0], 'b\r\n\r\n');
    expectEnvelope(parseResponses((await exchange(publicPort, request)).received)[0], 400, 'bad_request');
    expect(await storeState()).toEqual(before);
  });
});

describe('the internal GraphQL endpoint', () => {
  /** A GraphQL error naming the fault, no data, and nothing stored. */
  async function refusedOperation(body: Buffer, message: RegExp): Promise<RawAnswer> {
    const before = await storeState();
    const answer = await operation(body);
    expect(answer.body.data ?? null, JSON.stringify(answer.body)).toBeNull();
    expect(answer.body.errors?.[0]?.message).toMatch(message);
    expect(await storeState()).toEqual(before);
    return answer;
  }

  it.each<[string, Buffer, RegExp]>([
    ['a NUL escape in a variable', importBody('a\\u0000b'), /"i\.source".*Text contains NUL \(U\+0000\)/],
    ['a lone surrogate escape in a variable', importBody('\\ud800'), /"i\.source".*Text contains a lone surrogate \(U\+D800\)/],
    ['a NUL escape in a literal', bytesOf('{"query":"mutation { revokeApiKey(prefix: \\"a\\\\u0000b\\") { id } }"}'), /Text contains NUL/],
    [
      'a NUL escape in a sync source',
      bytesOf('{"query":"mutation($s: Text) { syncRates(source: $s) { days } }","variables":{"s":"/tmp/a\\u0000.csv"}}'),
      /Text contains NUL/,
    ],
  ])('%s is a GraphQL error and stores nothing', async (_what, body, message) => {
    await refusedOperation(body, message);
  });

  it('a body that is not UTF-8 is 400 and stores nothing', async () => {
    const answer = await refusedOperation(importBody('a', [0xc3, 0x28]), /^The request body is not valid UTF-8$/);
    expect(answer.status).toBe(400);
  });
});

describe('valid text outside ASCII', () => {
  it(`"${EXACT}" as raw UTF-8 and as JSON escapes is stored and read back exactly`, async () => {
    const escaped = 'Z\\u00fcrich \\u6771\\u4eac \\ud83d\\ude80';
    for (const body of [subscriptionBody(EXACT), subscriptionBody(escaped)]) {
      const created = await jsonPost(SUBSCRIPTIONS, body);
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      expect(created.body.subscription.description).toBe(EXACT);
      const row = await t.db.selectFrom('webhook_subscriptions').select('description').where('id', '=', created.body.subscription.id).executeTakeFirstOrThrow();
      expect(row.description).toBe(EXACT);
    }
    const listed = await send('GET', SUBSCRIPTIONS, { headers: { Authorization: `Bearer ${key}` } });
    expect(listed.body.subscriptions.filter((s: { description: string | null }) => s.description === EXACT)).toHaveLength(2);
  });

  it('as an import source through the internal endpoint', async () => {
    const answer = await operation(importBody(`/data/${EXACT}.csv`));
    expect(answer.body.errors).toBeUndefined();
    const row = await t.db.selectFrom('publications').select('source').orderBy('id', 'desc').executeTakeFirstOrThrow();
    expect(row.source).toBe(`/data/${EXACT}.csv`);
  });

  it('in a query parameter, percent-encoded: decoded exactly (and refused as a currency code, by name)', async () => {
    const answer = await send('GET', `/convert?from=${encodeURIComponent('東京')}&to=EUR&amount=1`);
    expect(answer.status).toBe(400);
    expect(answer.body.error.info).toBe("Invalid currency code '東京' in from: a 3-letter code is required");
  });
});
