// One edge (src/edge.ts) for every surface of the public listener, and the internal port's target
// judged by the same parser: each miss found at the edges, kept closed. Raw requests go to the
// real listeners (createListener, as the service makes them) on loopback ports.
import type { Server } from 'node:http';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphql } from '../../src/graphql.js';
import { LISTENER_LIMITS } from '../../src/http/limits.js';
import { createListener, listen } from '../../src/http/server.js';
import { appForFile, OPERATOR_TOKEN, startTestApp } from '../support/app.js';
import { exchange, expectEnvelope, parseResponses } from '../support/raw-http.js';

const t = appForFile({}, 'f11.1-data.csv');
const RESTRICT = graphql('mutation($p: Text!, $r: KeyRestrictionsInput) { restrictApiKey(prefix: $p, restrictions: $r) { id } }');
const SET_STATUS = graphql('mutation($e: EmailAddress!, $s: AccountStatus!) { setAccountStatus(email: $e, status: $s) { status } }');
const logger = pino({ level: 'silent' });
let servers: Server[] = [];
let publicPort: number;
let internalPort: number;

beforeAll(async () => {
  const web = createListener(t.app.web, { limits: LISTENER_LIMITS, logger });
  const internal = createListener(t.app.internal, { limits: LISTENER_LIMITS, logger });
  servers = [web, internal];
  publicPort = Number(new URL(await listen(web, 0, '127.0.0.1')).port);
  internalPort = Number(new URL(await listen(internal, 0, '127.0.0.1')).port);
});
afterAll(() => Promise.all(servers.map((server) => new Promise((done) => server.close(done)))));

async function only(port: number, request: string, method = 'GET') {
  const answer = await exchange(port, request);
  const responses = parseResponses(answer.received, [method]);
  expect(responses, answer.received).toHaveLength(1);
  return responses[0]!;
}

describe('one path handling on every surface', () => {
  it.each([
    ['/docs', 'text/html'],
    ['//docs', 'text/html'],
    ['/docs/', 'text/html'],
    ['http://rates.test/docs', 'text/html'],
    ['//openapi.json', 'application/json'],
    ['/dashboard', 'text/html'],
    ['/dashboard/', 'text/html'],
    ['http://rates.test/dashboard', 'text/html'],
    ['//latest', 'application/json'],
  ])('%s is served as its surface serves it, with an X-Request-Id', async (target, type) => {
    const response = await only(publicPort, `GET ${target} HTTP/1.1\r\nHost: rates.test\r\nConnection: close\r\n\r\n`);
    expect(response.status === 200 || response.status === 401, `${response.status} ${response.body.slice(0, 200)}`).toBe(true);
    expect(response.headers['content-type']).toMatch(new RegExp(`^${type}`));
    expect(response.headers['x-request-id']).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  });

  it('every dashboard answer carries X-Request-Id: a page, a redirect, a stylesheet, and a refusal page showing it', async () => {
    const page = await t.request('/dashboard', { headers: { 'X-Request-Id': 'page-1' } });
    expect(page.headers.get('x-request-id')).toBe('page-1');
    const redirect = await t.request('/dashboard/keys', { headers: { 'X-Request-Id': 'redirect-1' } });
    expect(redirect.status).toBe(303);
    expect(redirect.headers.get('x-request-id')).toBe('redirect-1');
    const stylesheet = /href="(\/dashboard\/static\/style-[0-9a-f]{16}\.css)"/.exec(await page.text())![1]!;
    expect((await t.request(stylesheet)).headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const missing = await t.request('/dashboard/nope', { headers: { 'X-Request-Id': 'missing-1' } });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(missing.headers.get('x-request-id')).toBe('missing-1');
    expect(await missing.text()).toContain('missing-1');
  });

  it('a plain-HTTP dashboard request from another machine is refused with a page, by the one HTTPS rule', async () => {
    const refused = await t.request('/dashboard', { remote: { address: '203.0.113.9' }, headers: { 'X-Request-Id': 'plain-1' } });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await refused.text()).toContain('plain-1');
  });
});

describe('methods', () => {
  it('CONNECT is answered 405 in the envelope, not a closed connection', async () => {
    const answer = await exchange(publicPort, 'CONNECT rates.test:443 HTTP/1.1\r\nHost: rates.test:443\r\n\r\n');
    const [response] = parseResponses(answer.received, ['CONNECT']);
    expectEnvelope(response, 405, 'method_not_allowed');
    expect(response!.headers.allow).toBeDefined();
  });

  it('a CONNECT behind an answer that closes the connection gets nothing after it', async () => {
    const answer = await exchange(publicPort, 'HEAD /latest HTTP/1.1\r\nHost:\r\n\r\nCONNECT /graphql HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(answer.received).toMatch(/^HTTP\/1\.1 400 [^]*\r\n\r\n$/);
    expect(answer.received.match(/HTTP\/1\.1/g), answer.received).toHaveLength(1);
  });

  it('a CONNECT behind a request on a kept-alive connection is refused after its answer, in order', async () => {
    const answer = await exchange(publicPort, 'GET /symbols HTTP/1.1\r\nHost: x\r\n\r\nCONNECT rates.test:443 HTTP/1.1\r\nHost: x\r\n\r\n');
    const responses = parseResponses(answer.received, ['GET', 'CONNECT']);
    expect(
      responses.map((r) => r.status),
      answer.received,
    ).toEqual([200, 405]);
    expect(JSON.parse(responses[0]!.body).success).toBe(true);
    expectEnvelope(responses[1], 405, 'method_not_allowed');
  });

  it.each(['TRACE', 'PROPFIND', 'PURGE'])('%s is 405 in the envelope on the API and the docs, and a page on the dashboard', async (method) => {
    expectEnvelope(await only(publicPort, `${method} /latest HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, method), 405, 'method_not_allowed');
    expectEnvelope(await only(publicPort, `${method} /docs HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, method), 405, 'method_not_allowed');
    const page = await only(publicPort, `${method} /dashboard HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, method);
    expect(page.status).toBe(405);
    expect(page.body).toContain(page.headers['x-request-id']);
  });
});

describe('methods answered once, at the edge, on every surface and on the internal port', () => {
  it.each([
    ['/latest', 'GET, HEAD, OPTIONS'],
    ['/docs', 'GET, HEAD, OPTIONS'],
    ['/dashboard/keys', 'GET, HEAD, POST, OPTIONS'],
    ['/mcp', 'POST, OPTIONS'],
  ])('OPTIONS %s is 204 with Allow: %s', async (path, allow) => {
    const response = await only(publicPort, `OPTIONS ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, 'OPTIONS');
    expect([response.status, response.headers.allow]).toEqual([204, allow]);
  });

  it('the internal port: 405 with Allow, OPTIONS 204, HEAD as GET, an unknown path 404, each in its own shape', async () => {
    const auth = `Authorization: Bearer ${OPERATOR_TOKEN}\r\n`;
    const put = await only(internalPort, `PUT /metrics HTTP/1.1\r\nHost: x\r\n${auth}Connection: close\r\n\r\n`, 'PUT');
    expect([put.status, put.headers.allow]).toEqual([405, 'GET, HEAD, OPTIONS']);
    expect(JSON.parse(put.body)).toEqual({ errors: [{ message: expect.stringMatching(/PUT is not allowed/), extensions: { code: 'method_not_allowed' } }] });
    const options = await only(internalPort, `OPTIONS /graphql HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, 'OPTIONS');
    expect([options.status, options.headers.allow]).toEqual([204, 'GET, HEAD, POST, OPTIONS']);
    const head = await only(internalPort, `HEAD /ready HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, 'HEAD');
    expect([head.status, head.headers['content-length'], head.body]).toEqual([200, '6', '']);
    const missing = await only(internalPort, `GET /nope HTTP/1.1\r\nHost: x\r\n${auth}Connection: close\r\n\r\n`);
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body).errors[0].extensions.code).toBe('not_found');
  });
});

describe('credentials and quota headers', () => {
  it("a suspended account's 401 names the Bearer scheme", async () => {
    const email = `edge-suspended-${Date.now()}@example.test`;
    const key = await t.createKey('professional', email);
    await t.operator(SET_STATUS, { e: email, s: 'suspended' });
    const refused = await t.request('/latest', { key });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('two Authorization headers are 400, whichever comes first', async () => {
    const key = await t.createKey('professional');
    for (const pair of [`Bearer ${key}\r\nAuthorization: Bearer nope`, `Bearer nope\r\nAuthorization: Bearer ${key}`]) {
      const response = await only(publicPort, `GET /latest HTTP/1.1\r\nHost: x\r\nAuthorization: ${pair}\r\nConnection: close\r\n\r\n`);
      expectEnvelope(response, 400, 'bad_request');
      expect(response.body).toContain('one Authorization header');
    }
  });

  it('two Authorization headers are 400 on the internal port too', async () => {
    const pair = `Bearer ${OPERATOR_TOKEN}\r\nAuthorization: Bearer nope`;
    const query = JSON.stringify({ query: '{ serviceStatus { state } }' });
    const response = await only(
      internalPort,
      `POST /graphql HTTP/1.1\r\nHost: x\r\nAuthorization: ${pair}\r\nContent-Type: application/json\r\nContent-Length: ${query.length}\r\nConnection: close\r\n\r\n${query}`,
      'POST',
    );
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body).errors[0]).toMatchObject({
      message: expect.stringMatching(/one Authorization header/),
      extensions: { code: 'bad_request' },
    });
  });

  it('two Host headers are 400 (RFC 9112 section 3.2), on both listeners', async () => {
    for (const port of [publicPort, internalPort]) {
      const response = await only(port, 'GET /status HTTP/1.1\r\nHost: a.test\r\nHost: b.test\r\nConnection: close\r\n\r\n');
      expectEnvelope(response, 400, 'bad_request');
      expect(response.body).toContain('one Host header');
    }
  });

  it("a key's restriction (403 key_restricted) carries the quota headers, as every keyed refusal does", async () => {
    const key = await t.createKey('starter');
    const restricted = await t.operator(RESTRICT, { p: key.split('_')[0]!, r: { allowedEndpoints: ['convert'] } });
    expect(restricted.errors).toBeUndefined();
    const refused = await t.request('/latest', { key });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('x-ratelimit-limit-monthly')).toBe('5000');
    expect(refused.headers.get('x-ratelimit-remaining-monthly')).toBe('5000');
  });

  it('a refused keyed request carries its quota headers, and takes no unit', async () => {
    const key = await t.createKey('starter');
    const refused = await t.request('/latest?symbols=XYZ', { key });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('x-ratelimit-limit-monthly')).toBe('5000');
    expect(refused.headers.get('x-ratelimit-remaining-monthly')).toBe('5000');
    expect(refused.headers.get('x-ratelimit-reset')).toMatch(/^\d{4}-\d\d-\d\dT/);
    const missing = await t.request('/2019-01-05/USD', { key });
    expect(missing.status).toBeGreaterThanOrEqual(400);
    expect(missing.headers.get('x-ratelimit-remaining-monthly')).toBe('5000');
    const served = await t.request('/latest', { key });
    expect(served.headers.get('x-ratelimit-remaining-monthly')).toBe('4999');
  });
});

describe('the internal port', () => {
  it('an absolute-form target is judged by the same parser: no 500, no stack trace, the token still needed', async () => {
    const target = `http://127.0.0.1:${internalPort}/graphql`;
    const refused = await only(internalPort, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${internalPort}\r\nConnection: close\r\n\r\n`);
    expect(refused.status).toBe(401);
    expect(refused.body).not.toMatch(/\bat .*\.(js|ts):\d+/);
    expect(refused.headers['x-request-id']).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    const query = JSON.stringify({ query: '{ serviceStatus { state } }' });
    const served = await only(
      internalPort,
      `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${OPERATOR_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${query.length}\r\nConnection: close\r\n\r\n${query}`,
      'POST',
    );
    expect(served.status).toBe(200);
    expect(JSON.parse(served.body)).toHaveProperty('data.serviceStatus.state');
  });

  it('a target that is no path is 400 in the envelope there too', async () => {
    expectEnvelope(await only(internalPort, 'GET http://[/ HTTP/1.1\r\nHost: x\r\n\r\n'), 400, 'bad_request');
  });

  it('/metrics with the store stopped still answers, the store marked down by audrates_store_up 0', async () => {
    const own = await startTestApp();
    const scrape = () => own.app.internal.fetch('http://internal.test/metrics', { headers: { Authorization: `Bearer ${OPERATOR_TOKEN}` } });
    expect(await (await scrape()).text()).toMatch(/^audrates_store_up 1$/m);
    await own.db.destroy();
    const during = await scrape();
    expect(during.status).toBe(200);
    const text = await during.text();
    expect(text).toMatch(/^audrates_store_up 0$/m);
    expect(text).toMatch(/^http_requests_total|^# HELP http_requests_total/m);
    await own.close().catch(() => undefined);
  });
});
