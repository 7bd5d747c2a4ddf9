// HTTP behaviour shared by every data endpoint: methods (docs/api.md §4, D25 in docs/decisions.md),
// HEAD, OPTIONS and CORS (D25), X-Request-Id (D21), ETag / If-None-Match and Cache-Control (D24).
import { beforeAll, describe, expect, it } from 'vitest';
import { appForFile } from '../support/app.js';
import { UUID, expectError } from '../support/expect.js';

// The nine data endpoints, each as a request that succeeds with a key.
const ENDPOINTS = [
  '/',
  '/status',
  '/symbols',
  '/convert?from=USD&to=EUR&amount=10',
  '/latest',
  '/latest/USD',
  '/timeseries?start_date=2023-01-03&end_date=2023-01-04',
  '/2023-01-03',
  '/2023-01-03/USD',
];
const KEYED = ENDPOINTS.slice(3);

const t = appForFile({ now: '2026-05-12T03:00:00Z' }, 'f11.1-data.csv');
let key: string;
beforeAll(async () => {
  key = await t.createKey();
});

describe('methods other than GET, HEAD and OPTIONS', () => {
  const cases = ['POST', 'PUT', 'DELETE', 'PATCH'].flatMap((method) => ENDPOINTS.map((path) => [method, path] as const));

  it.each(cases)('%s %s is 405 method_not_allowed with Allow', async (method, path) => {
    const res = await t.json(path, { method, key });
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('HEAD', () => {
  const comparable = (headers: Headers) => {
    const out: Record<string, string> = {};
    headers.forEach((value, name) => {
      // The request id is new on every request, and a HEAD counts like a GET, so what remains of a
      // quota goes down by one; a HEAD response may leave out Content-Length.
      const lower = name.toLowerCase();
      if (!['x-request-id', 'content-length', 'x-ratelimit-remaining-monthly', 'x-ratelimit-remaining'].includes(lower)) out[lower] = value;
    });
    return out;
  };

  it.each(ENDPOINTS)('HEAD %s has the headers of GET and no body', async (path) => {
    const get = await t.request(path, { key });
    const getBody = await get.text();
    const head = await t.request(path, { key, method: 'HEAD' });
    expect(head.status).toBe(get.status);
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect(getBody.length).toBeGreaterThan(0);
    expect(comparable(head.headers)).toEqual(comparable(get.headers));
    expect(head.headers.get('etag')).toBe(get.headers.get('etag'));
    expect(head.headers.get('x-request-id')).toMatch(UUID);
    const remaining = (r: Response) => r.headers.get('x-ratelimit-remaining-monthly') ?? r.headers.get('x-ratelimit-remaining');
    if (remaining(get) !== null) expect(Number(remaining(head))).toBe(Number(remaining(get)) - 1);
    else expect(remaining(head)).toBeNull();
  });

  it('HEAD of an error has its status and headers, no body', async () => {
    const head = await t.request('/latest', { method: 'HEAD' });
    expect(head.status).toBe(401);
    expect(await head.text()).toBe('');
    const notFound = await t.request('/2024-01-06', { key, method: 'HEAD' });
    expect(notFound.status).toBe(404);
    expect(await notFound.text()).toBe('');
  });
});

describe('OPTIONS', () => {
  const expectPreflight = async (res: Response) => {
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toMatch(/GET/);
    expect(res.headers.get('access-control-allow-headers')).toMatch(/Authorization/i);
    expect(res.headers.get('x-request-id')).toMatch(UUID);
  };

  it.each(ENDPOINTS)('OPTIONS %s without a key is 204 with Allow and CORS', async (path) => {
    await expectPreflight(await t.request(path, { method: 'OPTIONS' }));
  });

  it.each(KEYED)('OPTIONS %s with a key is 204 as well', async (path) => {
    await expectPreflight(await t.request(path, { method: 'OPTIONS', key }));
  });

  it('a browser preflight (Origin, Access-Control-Request-*) on a keyed endpoint is 204', async () => {
    const res = await t.request('/latest?symbols=USD', {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'authorization' },
    });
    await expectPreflight(res);
  });

  it('OPTIONS on a path with bad parameters is still 204 (it checks nothing but the route)', async () => {
    await expectPreflight(await t.request('/2024-02-30', { method: 'OPTIONS' }));
    await expectPreflight(await t.request('/latest?symbols=XYZ', { method: 'OPTIONS' }));
  });
});

describe('CORS', () => {
  it.each([
    ['a 200', '/latest', true],
    ['a public 200', '/symbols', false],
    ['a 400', '/latest?symbols=XYZ', true],
    ['a 401', '/latest', false],
    ['a 404', '/2024-01-06', true],
    ['an unknown path', '/foo', false],
  ])('Access-Control-Allow-Origin: * on %s (%s)', async (_what, path, withKey) => {
    const res = await t.request(path, withKey ? { key } : {});
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('exposes the headers a browser client needs to read', async () => {
    const res = await t.request('/latest', { key });
    const exposed = (res.headers.get('access-control-expose-headers') ?? '').split(',').map((h) => h.trim().toLowerCase());
    for (const name of ['etag', 'x-request-id', 'x-data-stale', 'x-rba-source-date']) expect(exposed).toContain(name);
  });
});

describe('X-Request-Id (D21)', () => {
  it.each([
    ['a 200', '/latest', 'GET', true],
    ['a public 200', '/', 'GET', false],
    ['a 204', '/latest', 'OPTIONS', false],
    ['a 400', '/latest?symbols=XYZ', 'GET', true],
    ['a 401', '/latest', 'GET', false],
    ['a 404', '/foo', 'GET', true],
    ['a 405', '/latest', 'DELETE', true],
  ])('is a new UUID on %s', async (_what, path, method, withKey) => {
    const res = await t.request(path, { method, ...(withKey ? { key } : {}) });
    expect(res.headers.get('x-request-id')).toMatch(UUID);
  });

  it('differs from one request to the next', async () => {
    const a = (await t.request('/symbols')).headers.get('x-request-id');
    const b = (await t.request('/symbols')).headers.get('x-request-id');
    expect(a).not.toBe(b);
  });

  it.each(['req-12345', 'a1b2c3.d4:e5_f6', '3f1c9a2e-8b4d-4e6f-9a1b-2c3d4e5f6a7b'])('echoes a safe client value %s', async (id) => {
    const ok = await t.request('/latest', { key, headers: { 'X-Request-Id': id } });
    expect(ok.headers.get('x-request-id')).toBe(id);
    const failed = await t.request('/latest', { headers: { 'X-Request-Id': id } });
    expect(failed.status).toBe(401);
    expect(failed.headers.get('x-request-id')).toBe(id);
  });

  it.each([
    ['300 characters', 'x'.repeat(300)],
    ['a blank inside', 'a b'],
    ['a quote', 'abc"def'],
    ['a slash and angle brackets', '</script>'],
  ])('replaces an unsafe client value (%s) with a UUID', async (_what, id) => {
    const res = await t.request('/latest', { key, headers: { 'X-Request-Id': id } });
    expect(res.headers.get('x-request-id')).toMatch(UUID);
  });
});

describe('ETag and If-None-Match (D24)', () => {
  it.each(ENDPOINTS)('%s carries an ETag, and a matching If-None-Match is 304 without a body', async (path) => {
    const first = await t.request(path, { key });
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^(W\/)?"[^"]+"$/);
    const again = await t.request(path, { key, headers: { 'If-None-Match': etag! } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.headers.get('x-request-id')).toMatch(UUID);
  });

  it('the same data gives the same ETag; different data a different one', async () => {
    const a = (await t.request('/latest?symbols=USD', { key })).headers.get('etag');
    const b = (await t.request('/latest?symbols=USD', { key })).headers.get('etag');
    const c = (await t.request('/latest?symbols=EUR', { key })).headers.get('etag');
    expect(a).toBe(b);
    expect(a).not.toBe(c);
  });

  it('a non-matching If-None-Match is a full 200', async () => {
    const res = await t.request('/latest/USD', { key, headers: { 'If-None-Match': '"something-else"' } });
    expect(res.status).toBe(200);
    expect(JSON.parse(await res.text()).rates).toEqual({ USD: 0.7013 });
  });

  it('matches within a list, a weak form and *', async () => {
    const etag = (await t.request('/2023-01-03/USD', { key })).headers.get('etag')!;
    for (const header of [`"nope", ${etag}`, `W/${etag}`, '*']) {
      const res = await t.request('/2023-01-03/USD', { key, headers: { 'If-None-Match': header } });
      expect(res.status, header).toBe(304);
    }
  });

  it('a 304 on a keyed endpoint stays no-store', async () => {
    const etag = (await t.request('/latest', { key })).headers.get('etag')!;
    const res = await t.request('/latest', { key, headers: { 'If-None-Match': etag } });
    expect(res.status).toBe(304);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('If-None-Match does not get past authentication', async () => {
    const etag = (await t.request('/latest', { key })).headers.get('etag')!;
    expectError(await t.json('/latest', { headers: { 'If-None-Match': etag } }), 401, 'unauthorized');
  });
});

describe('Cache-Control (D24)', () => {
  it.each(KEYED)('keyed %s is no-store', async (path) => {
    const res = await t.request(path, { key });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('keyless /convert is no-store', async () => {
    const res = await t.request('/convert?from=AUD&to=USD&amount=1');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('/symbols is public, max-age=86400', async () => {
    expect((await t.request('/symbols')).headers.get('cache-control')).toBe('public, max-age=86400');
  });

  it('errors are not cached', async () => {
    for (const path of ['/latest', '/foo']) {
      const res = await t.request(path);
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });

  it.each(ENDPOINTS)('%s answers application/json', async (path) => {
    expect((await t.request(path, { key })).headers.get('content-type')).toBe('application/json; charset=utf-8');
  });
});
