// The public endpoints: `/` (docs/api.md §2.9), `/symbols` (§2.7, D1 in docs/decisions.md) and the
// plain shape of `/status` (docs/api.md §2.8; freshness itself is in status.test.ts). None needs a
// key.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { appForFile } from '../support/app.js';
import { ISO_INSTANT, expectError, expectInstant } from '../support/expect.js';

const VERSION = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version as string;

const t = appForFile({ now: '2026-05-12T03:00:00Z' }, 'f11.1-data.csv'); // Tuesday 13:00 Sydney

describe('GET /', () => {
  it('answers the root response without a key', async () => {
    const { status, body, headers } = await t.json('/');
    expect(status).toBe(200);
    expect(body).toEqual({
      success: true,
      message: expect.any(String),
      documentation: 'https://docs.example.test/api',
      version: VERSION,
    });
    expect(body.message.length).toBeGreaterThan(10);
    expect(headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('refuses query parameters it does not take', async () => {
    expectError(await t.json('/?foo=1'), 400, 'bad_request', /foo/);
  });
});

describe('GET /symbols', () => {
  const SYMBOLS = {
    AUD: { name: 'Australian Dollar', symbol: 'A$', country: 'Australia' },
    USD: { name: 'US Dollar', symbol: 'US$', country: 'United States' },
    EUR: { name: 'Euro', symbol: '€', country: 'Euro area' },
    GBP: { name: 'Pound Sterling', symbol: '£', country: 'United Kingdom' },
    JPY: { name: 'Japanese Yen', symbol: '¥', country: 'Japan' },
    CNY: { name: 'Chinese Renminbi', symbol: 'CN¥', country: 'China' },
    KRW: { name: 'South Korean Won', symbol: '₩', country: 'South Korea' },
    INR: { name: 'Indian Rupee', symbol: '₹', country: 'India' },
    SGD: { name: 'Singapore Dollar', symbol: 'S$', country: 'Singapore' },
    NZD: { name: 'New Zealand Dollar', symbol: 'NZ$', country: 'New Zealand' },
    THB: { name: 'Thai Baht', symbol: '฿', country: 'Thailand' },
    MYR: { name: 'Malaysian Ringgit', symbol: 'RM', country: 'Malaysia' },
    IDR: { name: 'Indonesian Rupiah', symbol: 'Rp', country: 'Indonesia' },
    VND: { name: 'Vietnamese Dong', symbol: '₫', country: 'Vietnam' },
    HKD: { name: 'Hong Kong Dollar', symbol: 'HK$', country: 'Hong Kong' },
    PHP: { name: 'Philippine Peso', symbol: '₱', country: 'Philippines' },
    CAD: { name: 'Canadian Dollar', symbol: 'C$', country: 'Canada' },
    CHF: { name: 'Swiss Franc', symbol: 'CHF', country: 'Switzerland' },
    TWD: { name: 'New Taiwan Dollar', symbol: 'NT$', country: 'Taiwan' },
    TWI: { name: 'Trade-weighted Index (May 1970 = 100)', symbol: 'TWI', country: 'Australia' },
    SDR: { name: 'Special Drawing Right', symbol: 'XDR', country: 'International Monetary Fund' },
  };
  // docs/api.md §2.1, in its order.
  const CODES = 'AUD, USD, EUR, GBP, JPY, CNY, KRW, INR, SGD, NZD, THB, MYR, IDR, VND, HKD, PHP, CAD, CHF, TWD, TWI, SDR'.split(', ');

  it('lists the 21 codes of docs/api.md §2.1 with name, symbol and country, count 21, base AUD and the D1 note', async () => {
    const { status, body } = await t.json('/symbols');
    expect(status).toBe(200);
    expect(body).toEqual({ success: true, symbols: SYMBOLS, count: 21, base: 'AUD', note: expect.any(String) });
    expect(Object.keys(body.symbols)).toEqual(CODES);
    for (const info of Object.values<Record<string, string>>(body.symbols)) {
      expect(Object.keys(info).sort()).toEqual(['country', 'name', 'symbol']);
      for (const value of Object.values(info)) expect(value.length).toBeGreaterThan(0);
    }
  });

  it('says in its note that a rate is the units of foreign currency 1 AUD buys (D1), not AUD per unit', async () => {
    const { body } = await t.json('/symbols');
    expect(body.note).toMatch(/units of foreign currency that 1 AUD buys/);
    expect(body.note).not.toMatch(/AUD per unit/i);
  });

  it('is public and cacheable for a day (D24)', async () => {
    const { status, headers } = await t.json('/symbols');
    expect(status).toBe(200);
    expect(headers.get('cache-control')).toBe('public, max-age=86400');
    expect(headers.get('etag')).toMatch(/^(W\/)?"[^"]+"$/);
  });

  it('answers the same with a key', async () => {
    const key = await t.createKey();
    const keyed = await t.json('/symbols', { key });
    expect(keyed.status).toBe(200);
    expect(keyed.body.count).toBe(21);
  });

  it('refuses query parameters it does not take', async () => {
    expectError(await t.json('/symbols?base=AUD'), 400, 'bad_request', /base/);
  });
});

describe('GET /status', () => {
  it('has exactly the fields of docs/api.md §2.8 and needs no key', async () => {
    const { status, body } = await t.json('/status');
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(['last_update', 'next_update_expected', 'stale', 'status']);
    // Tuesday 13:00 Sydney, newest rates Monday's: fresh, next publication today at 16:00 AEST.
    expect(body).toMatchObject({ status: 'operational', stale: false });
    expect(body.last_update).toMatch(ISO_INSTANT);
    expectInstant(body.next_update_expected, '2026-05-12T06:00:00Z');
  });

  it('refuses query parameters it does not take', async () => {
    expectError(await t.json('/status?verbose=1'), 400, 'bad_request');
  });
});
