// Requests that once stopped the process or came back outside the envelope of docs/api.md §7, each
// against the real service as a child process (a crash shows as its exit), over raw sockets. The
// service runs with short time limits (set through its configuration) so that the slow-client cases
// take well under a second.
import { beforeAll, describe, expect, it } from 'vitest';
import { accountWithKeyVia, importFixtureVia, serviceOnOwnStore } from '../support/cli.js';
import { exchange, expectEnvelope, parseResponses } from '../support/raw-http.js';

const LIMITS = { HEADERS_TIMEOUT_MS: '400', REQUEST_TIMEOUT_MS: '800', KEEP_ALIVE_TIMEOUT_MS: '300' };
const { service } = serviceOnOwnStore(LIMITS);
let publicPort: number;
let internalPort: number;
let key: string;
beforeAll(async () => {
  publicPort = Number(new URL(service.publicUrl).port);
  internalPort = Number(new URL(service.internalUrl).port);
  await importFixtureVia(service, 'f11.1-data.csv');
  ({ key } = await accountWithKeyVia(service, 'refusals@example.test', 'professional'));
});

async function only(port: number, request: string, method = 'GET') {
  const answer = await exchange(port, request);
  const responses = parseResponses(answer.received, [method]);
  expect(responses, answer.received).toHaveLength(1);
  return { ...answer, response: responses[0]! };
}

const alive = async () => {
  expect(service.child.exitCode, service.output()).toBeNull();
  expect((await service.get('/status')).status).toBe(200);
};

describe('request targets that stopped the process', () => {
  it('`//` is the root path, as `/latest/` is `/latest`: 200, and the process answers after it', async () => {
    const { response } = await only(publicPort, 'GET // HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toHaveProperty('documentation');
    await alive();
  });

  it('`//latest` with a key is /latest', async () => {
    const { response } = await only(publicPort, `GET //latest HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`);
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toHaveProperty('rates');
    await alive();
  });

  it('an absolute-form target whose authority does not parse (`http://[/`) is 400 bad_request', async () => {
    const { response, closed } = await only(publicPort, 'GET http://[/ HTTP/1.1\r\nHost: x\r\n\r\n');
    expectEnvelope(response, 400, 'bad_request');
    expect(response.body).toMatch(/request target/);
    expect(closed).toBe(true);
    await alive();
  });

  it('an absolute-form target that parses is served by its path', async () => {
    const { response } = await only(publicPort, 'GET http://rates.example/status HTTP/1.1\r\nHost: rates.example\r\nConnection: close\r\n\r\n');
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toHaveProperty('status');
  });

  it('the asterisk form (`OPTIONS *`) names no resource here: 400 bad_request', async () => {
    const { response } = await only(publicPort, 'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n', 'OPTIONS');
    expectEnvelope(response, 400, 'bad_request');
  });

  it('an HTTP/1.1 request without Host is 400 bad_request in the envelope, echoing a safe X-Request-Id', async () => {
    const { response } = await only(publicPort, 'GET /status HTTP/1.1\r\nX-Request-Id: probe-1\r\n\r\n');
    expectEnvelope(response, 400, 'bad_request');
    expect(response.headers['x-request-id']).toBe('probe-1');
  });
});

describe('Host headers', () => {
  it('a Host that is no host is 400 bad_request on the public listener', async () => {
    const { response } = await only(publicPort, 'GET /status HTTP/1.1\r\nHost: [\r\n\r\n');
    expectEnvelope(response, 400, 'bad_request');
  });

  it('and on the internal one, whose adapter answered it with a 500 and a stack trace', async () => {
    const { response } = await only(internalPort, `GET /graphql HTTP/1.1\r\nHost: [\r\nAuthorization: Bearer ${service.operatorToken}\r\n\r\n`);
    expectEnvelope(response, 400, 'bad_request');
    await alive();
  });
});

describe("the HTTP parser's refusals, in the envelope with a new X-Request-Id and the connection closed", () => {
  it('a 100 KB request target is 431 headers_too_large', async () => {
    const { response, closed } = await only(publicPort, `GET /${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expectEnvelope(response, 431, 'headers_too_large');
    expect(response.headers.connection).toBe('close');
    expect(closed).toBe(true);
    await alive();
  });

  it('17 KB of headers is 431 headers_too_large', async () => {
    const headers = Array.from({ length: 17 }, (_, i) => `X-Filler-${i}: ${'b'.repeat(1000)}\r\n`).join('');
    const { response } = await only(publicPort, `GET /status HTTP/1.1\r\nHost: x\r\n${headers}\r\n`);
    expectEnvelope(response, 431, 'headers_too_large');
  });

  it.each([
    ['not a number', 'abc'],
    ['negative', '-1'],
    ['two different values', '5\r\nContent-Length: 6'],
  ])('a Content-Length that is %s is 400 bad_request', async (_, value) => {
    const { response } = await only(publicPort, `POST /api/webhook-subscriptions HTTP/1.1\r\nHost: x\r\nContent-Length: ${value}\r\n\r\n{}`, 'POST');
    expectEnvelope(response, 400, 'bad_request');
    expect(response.body).toMatch(/not valid HTTP\/1\.1/);
  });

  it('bad chunked encoding is 400 bad_request', async () => {
    const { response } = await only(
      publicPort,
      `POST /api/webhook-subscriptions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
      'POST',
    );
    expectEnvelope(response, 400, 'bad_request');
  });

  it('a request line that is not HTTP is 400 bad_request', async () => {
    const { response } = await only(publicPort, 'HELLO\r\n\r\n');
    expectEnvelope(response, 400, 'bad_request');
  });
});

describe('time limits', () => {
  it('a client sending its headers a byte at a time is cut off with 408 request_timeout at the headers limit', async () => {
    const answer = await exchange(publicPort, `GET /status HTTP/1.1\r\nHost: x\r\nX-Slow: ${'s'.repeat(200)}\r\n\r\n`, {
      pieces: { bytes: 1, pauseMs: 20 },
    });
    const [response] = parseResponses(answer.received);
    expectEnvelope(response, 408, 'request_timeout');
    expect(answer.closed).toBe(true);
    expect(answer.ms).toBeGreaterThanOrEqual(350);
    expect(answer.ms).toBeLessThan(3_000);
  });

  it('a connection that never sends anything is closed with 408 at the headers limit', async () => {
    const answer = await exchange(publicPort, '');
    expectEnvelope(parseResponses(answer.received)[0], 408, 'request_timeout');
    expect(answer.ms).toBeLessThan(3_000);
  });

  it('a body that stops arriving is cut off with 408 at the request limit', async () => {
    const answer = await exchange(
      publicPort,
      `POST /api/webhook-subscriptions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"url":`,
    );
    const [response] = parseResponses(answer.received, ['POST']);
    expectEnvelope(response, 408, 'request_timeout');
    expect(answer.closed).toBe(true);
    expect(answer.ms).toBeGreaterThanOrEqual(700);
    expect(answer.ms).toBeLessThan(3_000);
    await alive();
    // A client that gave up is no fault of the service's.
    expect(service.output()).not.toMatch(/"level":50/);
  });

  it('an idle kept-alive connection is closed after the keep-alive limit', async () => {
    const answer = await exchange(publicPort, 'GET /status HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(parseResponses(answer.received)[0]!.status).toBe(200);
    expect(answer.closed).toBe(true);
    expect(answer.ms).toBeGreaterThanOrEqual(250);
    expect(answer.ms).toBeLessThan(3_000);
  });
});

describe('the internal listener', () => {
  it('a 100 KB request target is 431 in the envelope', async () => {
    const { response } = await only(internalPort, `GET /graphql?${'q'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expectEnvelope(response, 431, 'headers_too_large');
  });

  it('a bad Content-Length is 400 in the envelope', async () => {
    const { response } = await only(internalPort, 'POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Length: 1x\r\n\r\n', 'POST');
    expectEnvelope(response, 400, 'bad_request');
  });

  it('a slow client is cut off with 408', async () => {
    const answer = await exchange(internalPort, 'POST /graphql HTTP/1.1\r\nHost: x\r\n');
    expectEnvelope(parseResponses(answer.received)[0], 408, 'request_timeout');
  });

  it('`//` and `http://[/` do not stop the process', async () => {
    for (const target of ['//', 'http://[/']) {
      const answer = await exchange(internalPort, `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      const [response] = parseResponses(answer.received);
      expect(response!.status).toBeLessThan(500);
    }
    await alive();
  });
});

it('after all of the above, the process is still there and answering', alive);
