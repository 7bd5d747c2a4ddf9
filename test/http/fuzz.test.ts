// Generated raw requests against the real service (a child process, so a crash shows as its exit):
// request lines, methods, targets with odd bytes, headers and bodies, some malformed on purpose,
// to every surface (the API, the docs, the dashboard). Every answer must be a 2xx, 3xx or 4xx with
// X-Request-Id, errors in the envelope of docs/api.md §7 (or, on the dashboard, an HTML page), or a
// closed connection; never a 5xx, never a connection held open; and the
// service must still answer afterwards, with no error in its log. A quarter as many go to the
// internal listener, where no answer may be a 5xx and every one has an X-Request-Id. The requests come from a seeded generator (fast-check):
// FUZZ_SEED=<n> repeats a run, FUZZ_RUNS=<n> changes its size, and a failure names its seed and the
// requests that failed.
import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { accountWithKeyVia, importFixtureVia, serviceOnOwnStore } from '../support/cli.js';
import { exchange, parseResponses, type Exchange } from '../support/raw-http.js';

const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const RUNS = Number(process.env.FUZZ_RUNS ?? 3000);
const CONCURRENCY = 12;
/** longer than any limit of the service below: a connection still open then is held */
const EXCHANGE_TIMEOUT_MS = 8_000;

// Short limits, so that requests left incomplete on purpose are cut off quickly.
const { service } = serviceOnOwnStore({ HEADERS_TIMEOUT_MS: '300', REQUEST_TIMEOUT_MS: '600', KEEP_ALIVE_TIMEOUT_MS: '100' });
let key: string;
beforeAll(async () => {
  await importFixtureVia(service, 'f11.1-data.csv');
  // Business: every endpoint answers its key, /export included
  ({ key } = await accountWithKeyVia(service, 'fuzz@example.test', 'business'));
});

// Any byte (latin1), with the bytes that matter to HTTP's syntax drawn more often.
const anyByte = fc.integer({ min: 0, max: 255 }).map((c) => String.fromCharCode(c));
const syntaxByte = fc.constantFrom(' ', '\t', '\r', '\n', '\0', ':', '/', '?', '#', '%', '[', ']', '@', '\\', '"', ',', ';', '=', '\x7f', '\xff');
const odd = (maxLength = 12) => fc.string({ unit: fc.oneof(anyByte, syntaxByte), maxLength });
// Bytes a parser lets through in a target or a header value (visible ASCII, and bytes above 0x7f).
const visibleByte = fc
  .oneof({ weight: 6, arbitrary: fc.integer({ min: 0x21, max: 0x7e }) }, fc.integer({ min: 0x80, max: 0xff }))
  .map((c) => String.fromCharCode(c));
const visible = (maxLength = 12) => fc.string({ unit: visibleByte, maxLength });
const urlText = (maxLength = 16) => fc.string({ unit: fc.constantFrom(..."abcXYZ019-._~!$&'()*+,;=:@%/?"), maxLength });
/** Mostly what a parser accepts, sometimes anything: each request is mostly well-formed, so most reach the app. */
const mostly = <T>(usual: fc.Arbitrary<T>, unusual: fc.Arbitrary<T>, weight = 15) => fc.oneof({ weight, arbitrary: usual }, { weight: 1, arbitrary: unusual });
const token = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~'), minLength: 1, maxLength: 10 });

const knownPath = fc.constantFrom(
  '/',
  '/status',
  '/symbols',
  '/latest',
  '/latest/USD',
  '/latest/usd',
  '/2024-01-05',
  '/2024-01-05/EUR',
  '/2024-02-30',
  '/convert',
  '/timeseries',
  '/averages',
  '/2024-01-06?fallback=previous',
  '/2024-01-06?fallback=nearest&symbols=USD,eur',
  '/calendar',
  '/calendar?year=2026',
  '/export',
  '/export?start_date=2023-01-01&symbols=USD',
  '/usage',
  '/api/webhook-subscriptions',
  '/api/webhook-subscriptions/00000000-0000-0000-0000-000000000000',
  '/api/webhook-subscriptions/x/test',
  '/api/webhook-subscriptions/x/deliveries',
  '/api/webhook-subscriptions/x/deliveries/00000000-0000-0000-0000-000000000000/redeliver',
  '/api/alerts',
  '/api/alerts/0123456789abcdef0123456789abcdef',
  '/api/alerts/x/test',
  '//',
  '///latest',
  '/graphql',
  '/%',
  '/%zz',
  '/%00',
  '/..%2f',
  '/docs',
  '//docs',
  '/docs/',
  '/openapi.json',
  '/docs/scalar.js',
  '/dashboard',
  '/dashboard/',
  '//dashboard/keys',
  '/dashboard/sign-in',
  '/dashboard/webhooks/test',
  '/dashboard/alerts',
  '/dashboard/alerts/pause?token=0123456789abcdef0123456789abcdef.x',
  '/dashboard/nope',
  '/dashboard/static/style.css',
  '/metrics',
  '/graphql/',
);
const query = fc.oneof(
  fc.constant(''),
  fc.constantFrom(
    '?symbols=USD,EUR',
    '?symbols=',
    '?symbols=USD&symbols=EUR',
    '?from=USD&to=EUR&amount=100',
    '?from=USD&to=EUR&amount=1e999',
    '?from=USD&to=TWI&amount=-1',
    '?date=2024-02-30',
    '?start_date=2024-01-01&end_date=2024-03-01',
    '?start_date=2024-03-01&end_date=2024-01-01',
    '?%=%',
    '?period=FY2024',
    '?period=2024-Q5&interval=month',
    '?period=2024&start_date=2024-01-01',
    '?fallback=next',
    '?fallback=nearest',
    '?year=2026',
    '?year=20x',
    '?year=2017',
    '?start_date=2024-01-01&end_date=2025-12-31',
  ),
  urlText().map((q) => `?${q}`),
  mostly(urlText(), visible(), 2).map((q) => `?${q}`),
);
const path = fc
  .tuple(
    fc.oneof(
      { weight: 12, arbitrary: knownPath },
      urlText().map((p) => `/${p}`),
      urlText().map((p) => `//${p}`),
      fc.oneof(visible(), odd()).map((p) => `/${p}`),
    ),
    query,
  )
  .map(([p, q]) => p + q);
const authority = fc.oneof(fc.constantFrom('[', '[::1]', 'a:99999', 'example.com', 'rates.test:8080', '@', '', 'x@y', '%41'), odd(8));
const target = fc.oneof(
  { weight: 30, arbitrary: path },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom('http://', 'https://', 'HTTP://', 'ftp://'), authority, path).map((parts) => parts.join('')) },
  { weight: 1, arbitrary: fc.constantFrom('*', 'example.com:443', '') },
  { weight: 1, arbitrary: odd(20) },
);
const method = fc.oneof(
  { weight: 40, arbitrary: fc.constantFrom('GET', 'GET', 'GET', 'HEAD', 'POST', 'OPTIONS', 'PATCH', 'DELETE', 'PUT') },
  { weight: 1, arbitrary: fc.constantFrom('CONNECT', 'TRACE', 'get', 'PRI', 'M-SEARCH', '') },
  { weight: 1, arbitrary: odd(8) },
);
const version = fc.oneof(
  { weight: 25, arbitrary: fc.constant('HTTP/1.1') },
  { weight: 4, arbitrary: fc.constant('HTTP/1.0') },
  fc.constantFrom('HTTP/2.0', 'HTTP/1.1 ', 'http/1.1', 'HTTP/1.x', 'HTTP/1.1\0', ''),
);
const lineBreak = mostly(fc.constant('\r\n'), fc.constantFrom('\n', '\r', '\r\r\n'), 40);

/** `KEY` stands for a valid API key, filled in when the request is sent. */
const header = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      'Authorization: Bearer KEY',
      'Authorization: Bearer KEY',
      'Authorization: Basic Zm9vOmJhcg==',
      'Authorization: Bearer',
      'Authorization: Bearer KEYx',
    ),
  },
  mostly(visible(70), odd(70)).map((v) => `Authorization: Bearer ${v}`),
  mostly(fc.nat(40).map(String), fc.constantFrom('-1', 'abc', '99999999999999999999', '1, 2', '', '0x10', '+5'), 2).map((v) => `Content-Length: ${v}`),
  mostly(fc.constant('chunked'), fc.constantFrom('gzip, chunked', 'chunked, gzip', 'identity', '', 'CHUNKED'), 2).map((v) => `Transfer-Encoding: ${v}`),
  mostly(fc.constantFrom('application/json', 'text/plain', 'application/json; charset=latin1', 'APPLICATION/JSON'), odd(), 5).map((v) => `Content-Type: ${v}`),
  { weight: 2, arbitrary: fc.oneof({ weight: 4, arbitrary: token }, visible(150), odd(150)).map((v) => `X-Request-Id: ${v}`) },
  mostly(fc.constantFrom('*', '"x"', 'W/"x", "y"'), visible(30), 2).map((v) => `If-None-Match: ${v}`),
  mostly(
    fc.constantFrom(
      'text/csv',
      'application/x-ndjson',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      'application/json',
      '*/*',
      'text/*;q=0.5, application/x-ndjson',
      'image/png',
    ),
    visible(40),
    3,
  ).map((v) => `Accept: ${v}`),
  fc.constantFrom(
    'Expect: 100-continue',
    'Expect: nope',
    'Upgrade: websocket',
    'Upgrade: h2c',
    'Connection: keep-alive',
    'Connection: Upgrade',
    'Connection: close, TE',
  ),
  mostly(fc.constantFrom('127.0.0.1', '::1', '10.0.0.1, 1.2.3.4', 'unknown'), visible(), 3).map((v) => `X-Forwarded-For: ${v}`),
  {
    weight: 2,
    arbitrary: fc.constantFrom('X-Forwarded-Proto: http', 'X-Forwarded-Proto: https', 'Origin: https://example.com', 'Access-Control-Request-Method: POST'),
  },
  mostly(fc.tuple(token, visible(20)), fc.tuple(odd(10), odd(20)), 3).map(([n, v]) => `X-${n}: ${v}`),
);
const body = fc.oneof(
  { weight: 4, arbitrary: fc.constant('') },
  fc.constantFrom(
    '{"url":"https://8.8.8.8/hook","currencies":["USD"]}',
    '{"url":"http://x"}',
    '{"isActive":true}',
    '{"currency":"USD","condition":"above","value":0.7,"channels":["email"]}',
    '{"currency":"USD","condition":"change_pct","value":"1e9","channels":["webhook","email"],"description":"x"}',
    '{"url":"https://8.8.8.8/x","description":"a\\u0000b"}',
    '[]',
    '{',
    '5\r\nhello\r\n0\r\n\r\n',
    'zz\r\n{}\r\n0\r\n\r\n',
    '2\r\n{}\r\n',
  ),
  odd(60),
);

// POST /mcp (D40): JSON-RPC messages, mostly well-formed tool calls with generated arguments, sent
// as an MCP client sends them.
const TOOL_NAMES = [
  'get_latest_rates',
  'get_rates_for_date',
  'convert',
  'get_timeseries',
  'get_fluctuation',
  'list_currencies',
  'get_service_status',
  'get_publication_calendar',
  'get_usage',
];
const ARGUMENT_NAMES = ['symbols', 'date', 'start_date', 'end_date', 'from', 'to', 'amount', 'fallback', 'base', 'year'];
const asciiJson = fc.jsonValue({ maxDepth: 3, noUnicodeString: true });
const argumentValue = fc.oneof(
  fc.constantFrom('USD', 'usd', 'TWI', 'XXX', '2024-01-05', '2024-02-30', '2026-05-09', '100', '-1', '1e999', 'previous', 'next', 'nearest', '2026', ''),
  fc.array(fc.constantFrom('USD', 'EUR', 'AUD', 'X', ''), { maxLength: 4 }),
  fc.oneof(fc.double(), fc.integer()),
  asciiJson,
);
const toolArguments = fc.oneof(
  { weight: 6, arbitrary: fc.dictionary(mostly(fc.constantFrom(...ARGUMENT_NAMES), token, 6), argumentValue, { maxKeys: 4 }) },
  asciiJson,
);
const rpcId = mostly(fc.nat(1000), fc.oneof(fc.constant(null), token, fc.double()), 8);
const mcpMessage = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .record({ id: rpcId, name: mostly(fc.constantFrom(...TOOL_NAMES), token, 8), arguments: toolArguments })
      .map(({ id, ...params }) => ({ jsonrpc: '2.0', id, method: 'tools/call', params })),
  },
  fc.constantFrom(
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } } },
    { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    { jsonrpc: '2.0', id: 3, method: 'ping' },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 4, method: 'resources/list' },
  ),
  fc.record({ jsonrpc: mostly(fc.constant('2.0'), asciiJson), id: rpcId, method: fc.oneof(token, asciiJson), params: asciiJson }, { requiredKeys: [] }),
);
const mcpBody = fc.oneof(
  { weight: 10, arbitrary: mcpMessage.map((message) => JSON.stringify(message)) },
  fc.array(mcpMessage, { maxLength: 3 }).map((batch) => JSON.stringify(batch)),
  asciiJson.map((value) => JSON.stringify(value)),
  mcpMessage.map((message) => JSON.stringify(message).slice(0, -3)),
  odd(60),
);
const mcpRequest = fc
  .record({
    method: mostly(fc.constant('POST'), fc.constantFrom('GET', 'DELETE', 'HEAD', 'OPTIONS', 'PUT')),
    headers: fc.array(
      fc.oneof(
        fc.constantFrom(
          'Authorization: Bearer KEY',
          'Authorization: Bearer KEYx',
          'Accept: application/json',
          'Content-Type: text/plain',
          'Mcp-Protocol-Version: 1999-01-01',
        ),
        header,
      ),
      { maxLength: 2 },
    ),
    body: mcpBody,
    close: mostly(fc.constant(true), fc.constant(false), 4),
  })
  .map(({ method, headers, body, close }) => (last: boolean): Request => {
    const lines = [
      `${method} /mcp HTTP/1.1`,
      'Host: rates.test',
      'Authorization: Bearer KEY',
      'Accept: application/json, text/event-stream',
      'Content-Type: application/json',
      'Mcp-Protocol-Version: 2025-06-18',
      ...headers,
      `Content-Length: ${body.length}`,
      ...(last && close ? ['Connection: close'] : []),
    ];
    return { method, mcp: true, text: `${lines.join('\r\n')}\r\n\r\n${body}` };
  });

interface Request {
  method: string;
  /** sent to /mcp, whose protocol errors are JSON-RPC errors rather than the envelope */
  mcp?: boolean;
  /** the request's bytes with `KEY` in place of the key */
  text: string;
}

const request = fc
  .record({
    method,
    target,
    version,
    lineBreak,
    host: mostly(
      fc.constant('Host: rates.test'),
      fc.oneof(
        fc.constantFrom('', 'Host:', 'Host: [', 'Host: a, b'),
        odd().map((h) => `Host: ${h}`),
      ),
    ),
    headers: fc.array(header, { maxLength: 3 }),
    body,
    // A body mostly comes with its length; without it, it reads as the start of a next request.
    framed: mostly(fc.constant(true), fc.constant(false), 6),
    // Most connections ask the service to close after answering; the rest wait out its keep-alive limit.
    close: mostly(fc.constant(true), fc.constant(false), 4),
  })
  .map(({ method, target, version, lineBreak, host, headers, body, framed, close }) => {
    const length = framed && body !== '' ? [`Content-Length: ${body.length}`] : [];
    /** the request, asking to close the connection when it is the last one on it */
    return (last: boolean): Request => {
      const lines = [`${method} ${target} ${version}`, ...(host ? [host] : []), ...headers, ...length, ...(last && close ? ['Connection: close'] : [])];
      return { method, text: lines.join(lineBreak) + lineBreak + lineBreak + body };
    };
  });
const anyRequest = fc.oneof({ weight: 5, arbitrary: request }, mcpRequest);
/** Sometimes a second request follows the first on the same connection. */
const connection = fc.tuple(anyRequest, fc.option(anyRequest, { freq: 8 })).map(([first, second]) => (second ? [first(false), second(true)] : [first(true)]));

/**
 * What is wrong with an exchange, or null. Every answer has an X-Request-Id. `envelopes`: the public
 * listener's rules (errors in the envelope, or a dashboard page); otherwise the body is not
 * judged (the internal endpoint answers in GraphQL's shape).
 */
function problemWith(result: Exchange, requests: readonly Request[], envelopes: boolean): string | null {
  let responses;
  try {
    responses = parseResponses(
      result.received,
      requests.map((r) => r.method),
    );
  } catch (error) {
    return `unreadable answer (${(error as Error).message})`;
  }
  if (responses.length === 0) return result.closed ? null : `no answer and the connection still open after ${EXCHANGE_TIMEOUT_MS} ms`;
  for (const [i, response] of responses.entries()) {
    if (response.status < 200 || response.status >= 500) return `status ${response.status}`;
    const requestId = response.headers['x-request-id'] ?? '';
    if (!/^[A-Za-z0-9._:-]{1,128}$/.test(requestId)) return `status ${response.status} without a valid X-Request-Id`;
    if (!envelopes) continue;
    if (response.status < 400 || response.body === '') continue; // a HEAD's error has no body
    if ((response.headers['content-type'] ?? '').startsWith('text/html')) continue; // a dashboard page (test/http/edge.test.ts reads its refusals)
    let envelope: any;
    try {
      envelope = JSON.parse(response.body);
    } catch {
      return `status ${response.status} with a body that is not JSON: ${JSON.stringify(response.body.slice(0, 200))}`;
    }
    if (requests[i]?.mcp && isRpcError(envelope)) continue;
    const ok =
      envelope?.success === false &&
      envelope.error?.code === response.status &&
      typeof envelope.error.type === 'string' &&
      typeof envelope.error.info === 'string' &&
      Object.keys(envelope).length === 2;
    if (!ok) return `status ${response.status} outside the envelope: ${response.body.slice(0, 200)}`;
  }
  return null;
}

/** A JSON-RPC error, as /mcp answers a message the protocol refuses. */
const isRpcError = (body: any): boolean =>
  body?.jsonrpc === '2.0' && Number.isInteger(body.error?.code) && typeof body.error.message === 'string' && 'id' in body;

/** Sends `runs` generated connections' requests to `port`, `secret` standing for KEY; the problems found (at most 5). */
async function fuzz(port: number, secret: string, runs: number, envelopes: boolean): Promise<string[]> {
  const connections = fc.sample(connection, { seed: SEED, numRuns: runs });
  const problems: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < connections.length && problems.length < 5) {
      const requests = connections[next++]!;
      const bytes = requests.map((r) => r.text.replaceAll('KEY', secret)).join('');
      const result = await exchange(port, bytes, { timeoutMs: EXCHANGE_TIMEOUT_MS, responses: requests.length });
      const problem = problemWith(result, requests, envelopes);
      if (problem) problems.push(`${problem}\n  request: ${JSON.stringify(bytes)}\n  answer: ${JSON.stringify(result.received.slice(0, 600))}`);
      if (service.child.exitCode !== null || service.child.signalCode !== null) {
        problems.push(`the service exited (${service.child.exitCode ?? service.child.signalCode}) after ${JSON.stringify(bytes)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return problems;
}

async function expectServiceWell(problems: string[]): Promise<void> {
  const report = `FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS}:\n${problems.join('\n')}\n${problems.length ? service.output().slice(-3000) : ''}`;
  expect(problems, report).toEqual([]);
  const status = await service.get('/status');
  expect(status.status, report).toBe(200);
  // Nothing a client sends is a fault of the service's: no error was logged.
  const errors = service
    .output()
    .split('\n')
    .filter((line) => /"level":(50|60)/.test(line));
  expect(errors, `FUZZ_SEED=${SEED}`).toEqual([]);
}

it(
  `${RUNS} generated requests to the public listener get an answer in the envelope or a closed connection, and the service lives (seed ${SEED})`,
  { timeout: 180_000 },
  async () => {
    await expectServiceWell(await fuzz(Number(new URL(service.publicUrl).port), key, RUNS, true));
  },
);

it(`${Math.ceil(RUNS / 4)} to the internal listener never get a 5xx, and the service lives (seed ${SEED})`, { timeout: 180_000 }, async () => {
  await expectServiceWell(await fuzz(Number(new URL(service.internalUrl).port), service.operatorToken, Math.ceil(RUNS / 4), false));
});
