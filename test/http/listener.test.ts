// The listener every port uses (src/http/server.ts): the time limits a configuration sets, with the
// service's defaults when it sets none, and the request-target rules on their own.
import type { IncomingMessage } from 'node:http';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { listenerLimitsOf } from '../../src/http/limits.js';
import { requestUrl } from '../../src/http/request-target.js';
import { createListener } from '../../src/http/server.js';

const logger = pino({ level: 'silent' });

describe('time limits', () => {
  it('default to headers within 10 s, a request within 30 s, keep-alive idle 5 s, on every listener made', () => {
    const limits = listenerLimitsOf(parseConfig({}));
    expect(limits).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000 });
    const server = createListener(() => undefined, { limits, logger });
    expect(server.headersTimeout).toBe(10_000);
    expect(server.requestTimeout).toBe(30_000);
    expect(server.keepAliveTimeout).toBe(5_000);
  });

  it('are set from HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS and KEEP_ALIVE_TIMEOUT_MS', () => {
    const limits = listenerLimitsOf(parseConfig({ HEADERS_TIMEOUT_MS: '2000', REQUEST_TIMEOUT_MS: '4000', KEEP_ALIVE_TIMEOUT_MS: '1000' }));
    expect(limits).toEqual({ headersTimeoutMs: 2_000, requestTimeoutMs: 4_000, keepAliveTimeoutMs: 1_000 });
  });

  it('refuse a headers limit above the request limit, and values that are not whole milliseconds', () => {
    expect(() => parseConfig({ HEADERS_TIMEOUT_MS: '40000' })).toThrow(/HEADERS_TIMEOUT_MS cannot exceed REQUEST_TIMEOUT_MS/);
    expect(() => parseConfig({ REQUEST_TIMEOUT_MS: '1.5' })).toThrow(/REQUEST_TIMEOUT_MS/);
    expect(() => parseConfig({ KEEP_ALIVE_TIMEOUT_MS: '0' })).toThrow(/KEEP_ALIVE_TIMEOUT_MS/);
  });
});

describe('request targets', () => {
  const request = (url: string, host: string | null = 'rates.test', version = '1.1') =>
    ({
      url,
      httpVersionMajor: 1,
      httpVersionMinor: Number(version.split('.')[1]),
      headers: host === null ? {} : { host },
    }) as IncomingMessage;
  const pathOf = (url: string) => {
    const parsed = requestUrl(request(url));
    return parsed.pathname + parsed.search;
  };

  it.each([
    ['/latest?symbols=USD', '/latest?symbols=USD'],
    ['//', '//'],
    ['//evil.example/latest', '//evil.example/latest'],
    ['/\\evil.example', '//evil.example'],
    ['http://rates.example/status?x=1', '/status?x=1'],
    ['HTTPS://rates.example', '/'],
  ])('%s is the path %s on this service', (target, path) => {
    expect(pathOf(target)).toBe(path);
  });

  it.each(['http://[/', 'https://a:99999/', '*', 'example.com:443', 'ftp://example.com/', '', 'latest'])('%j is refused as 400 bad_request', (target) => {
    expect(() => requestUrl(request(target))).toThrow(expect.objectContaining({ code: 'bad_request' }));
  });

  it.each(['rates.test', 'rates.test:8080', '127.0.0.1:80', '[::1]:8080', 'localhost:'])('Host %s is a host', (host) => {
    expect(requestUrl(request('/status', host)).pathname).toBe('/status');
  });

  it.each(['[', 'a b', 'a/b', 'x@y', 'a:99999', '', '[::1', 'rates.test:8x'])('Host %j is refused as 400 bad_request', (host) => {
    expect(() => requestUrl(request('/status', host))).toThrow(/Host header must be a host/);
  });

  it('an HTTP/1.1 request needs a Host header; an HTTP/1.0 one does not', () => {
    expect(() => requestUrl(request('/', null))).toThrow(/Host header/);
    expect(requestUrl(request('/', null, '1.0')).pathname).toBe('/');
  });
});
