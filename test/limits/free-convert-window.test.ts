// docs/api.md §8 rules 2 and 5, §7, D19 (docs/decisions.md): keyless /convert allows 3 requests per
// client in a fixed 3600 s window that opens at the client's first counted request; the 4th is 429
// "Rate limit exceeded. Try again in N seconds." with Retry-After N, Limit, Remaining 0 and Reset.
import { afterEach, describe, expect, it } from 'vitest';
import type { RequestOptions } from '../support/app.js';
import { expectError } from '../support/expect.js';
import { syntheticTable } from '../support/rates.js';
import { appForFile } from '../support/app.js';

const NOW = '2026-05-12T03:17:23Z';
const CONVERT = '/convert?from=USD&to=EUR&amount=10';

const t = appForFile({ now: NOW }, syntheticTable('2026-05-04', '2026-05-11'));
afterEach(() => t.setNow(NOW));

let clients = 0;
/** A client of its own (a TLS socket from a public address), so each test starts with a fresh window. */
const newClient = (): RequestOptions => ({ remote: { address: `203.0.113.${++clients}`, encrypted: true } });

const at = (base: string, seconds: number) => new Date(Date.parse(base) + seconds * 1000).toISOString();

function expectAllowed(res: { status: number; body: any; headers: Headers }, remaining: number, reset: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body).toMatchObject({ success: true, free: true, query: { from: 'USD', to: 'EUR', amount: 10 } });
  expect(res.headers.get('x-ratelimit-limit')).toBe('3');
  expect(res.headers.get('x-ratelimit-remaining')).toBe(String(remaining));
  expect(res.headers.get('x-ratelimit-window')).toBe('3600');
  expect(new Date(res.headers.get('x-ratelimit-reset')!).toISOString()).toBe(new Date(reset).toISOString());
  expect(res.headers.get('x-ratelimit-reset')).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
  expect(res.headers.get('retry-after')).toBeNull();
  expect(res.headers.get('x-ratelimit-limit-monthly')).toBeNull();
  expect(res.headers.get('x-ratelimit-remaining-monthly')).toBeNull();
}

function expectLimited(res: { status: number; body: any; headers: Headers }, seconds: number, reset: string): void {
  expectError(res, 429, 'rate_limit_exceeded', `Rate limit exceeded. Try again in ${seconds} seconds.`);
  expect(res.headers.get('retry-after')).toBe(String(seconds));
  expect(res.headers.get('x-ratelimit-limit')).toBe('3');
  expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
  expect(new Date(res.headers.get('x-ratelimit-reset')!).toISOString()).toBe(new Date(reset).toISOString());
  expect(res.headers.get('x-ratelimit-limit-monthly')).toBeNull();
}

describe('keyless /convert', () => {
  it("3 requests with Remaining 2, 1, 0, then 429 with N = seconds to the window's end", async () => {
    const client = newClient();
    const reset = at(NOW, 3600); // 04:17:23Z: the window opened with the first request, not on the hour
    expectAllowed(await t.json(CONVERT, client), 2, reset);
    t.setNow(at(NOW, 600));
    expectAllowed(await t.json(CONVERT, client), 1, reset);
    t.setNow(at(NOW, 1200));
    expectAllowed(await t.json(CONVERT, client), 0, reset);
    t.setNow(at(NOW, 1000 + 1200));
    expectLimited(await t.json(CONVERT, client), 1400, reset);
  });

  it('the window is fixed: 3599 s after it opened still 429, at 3600 s a new window opens', async () => {
    const client = newClient();
    const reset = at(NOW, 3600);
    for (const remaining of [2, 1, 0]) expectAllowed(await t.json(CONVERT, client), remaining, reset);
    expectLimited(await t.json(CONVERT, client), 3600, reset);
    t.setNow(at(NOW, 1800));
    expectLimited(await t.json(CONVERT, client), 1800, reset); // refused requests do not move the window
    t.setNow(at(NOW, 3599));
    expectLimited(await t.json(CONVERT, client), 1, reset);
    t.setNow(at(NOW, 3600));
    const nextReset = at(NOW, 7200);
    expectAllowed(await t.json(CONVERT, client), 2, nextReset);
    t.setNow(at(NOW, 7199));
    expectAllowed(await t.json(CONVERT, client), 1, nextReset);
  });

  it('a new window opens at the first request after the old one ended, however late', async () => {
    const client = newClient();
    expectAllowed(await t.json(CONVERT, client), 2, at(NOW, 3600));
    const later = at(NOW, 5 * 3600 + 42);
    t.setNow(later);
    expectAllowed(await t.json(CONVERT, client), 2, at(later, 3600));
    expectAllowed(await t.json(CONVERT, client), 1, at(later, 3600));
  });

  it('a 429 in the last partial second asks for at least 1 second', async () => {
    const client = newClient();
    for (const remaining of [2, 1, 0]) expectAllowed(await t.json(CONVERT, client), remaining, at(NOW, 3600));
    t.setNow(new Date(Date.parse(NOW) + 3599_500).toISOString());
    expectLimited(await t.json(CONVERT, client), 1, at(NOW, 3600));
  });

  it('HEAD counts, OPTIONS does not', async () => {
    const client = newClient();
    expect((await t.request(CONVERT, { ...client, method: 'OPTIONS' })).status).toBe(204);
    const head = await t.request(CONVERT, { ...client, method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('x-ratelimit-remaining')).toBe('2');
    expectAllowed(await t.json(CONVERT, client), 1, at(NOW, 3600));
  });

  it('without a server context the client is this machine, counted like any other', async () => {
    const reset = at(NOW, 3600);
    for (const remaining of [2, 1, 0]) expectAllowed(await t.json(CONVERT), remaining, reset);
    expectLimited(await t.json(CONVERT), 3600, reset);
    // 127.0.0.1 given explicitly is the same client
    expectLimited(await t.json(CONVERT, { remote: { address: '127.0.0.1' } }), 3600, reset);
  });
});
