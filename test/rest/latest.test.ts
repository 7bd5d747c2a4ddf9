// GET /latest and /latest/{currency} (docs/api.md §2.4, D2–D5, D10 in docs/decisions.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, appForFile } from '../support/app.js';
import { expectError, unixOf } from '../support/expect.js';
import { asNumbers, syntheticDay, table } from '../support/rates.js';

// f11.1-data.csv, 11-May-2026, as served: trailing zeros dropped (D2), no AUD (D3), no AED/PGK/ZAR.
const MAY_11 = {
  USD: 0.7013,
  TWI: 64.6,
  CNY: 4.769,
  JPY: 109.02,
  EUR: 0.5964,
  KRW: 1010.45,
  GBP: 0.5198,
  SGD: 0.8903,
  INR: 63.05,
  THB: 22.61,
  NZD: 1.182,
  TWD: 21.8,
  MYR: 2.865,
  IDR: 11935,
  VND: 18410,
  HKD: 5.4528,
  CAD: 0.9561,
  CHF: 0.5476,
  PHP: 41.2,
  SDR: 0.5117,
};

const t = appForFile({ now: '2026-05-12T03:00:00Z' }, 'f11.1-data.csv'); // Tuesday 13:00 Sydney: Monday's rates are fresh
let key: string;
beforeAll(async () => {
  key = await t.createKey();
});

describe('GET /latest', () => {
  it('answers the newest day with all 20 published codes', async () => {
    const { status, body, headers } = await t.json('/latest', { key });
    expect(status).toBe(200);
    expect(body).toEqual({ success: true, timestamp: 1778457600, base: 'AUD', date: '2026-05-11', rates: MAY_11 });
    expect(body.timestamp).toBe(unixOf('2026-05-11'));
    expect(Object.keys(body.rates)).toHaveLength(20);
    expect(body.rates).not.toHaveProperty('AUD');
    expect(headers.get('cache-control')).toBe('no-store');
    expect(headers.get('x-data-stale')).toBeNull();
  });

  it('prints the published digits exactly: 64.60 as 64.6, IDR and VND whole, nothing past 6 dp', async () => {
    const text = await (await t.request('/latest', { key })).text();
    expect(text).toContain('"TWI":64.6,');
    expect(text).toContain('"IDR":11935,');
    expect(text).toContain('"VND":18410,');
    expect(text).toContain('"PHP":41.2,');
    expect(text).toContain('"KRW":1010.45,');
    expect(text).not.toMatch(/\d\.\d*0[,}]/); // no trailing zero
    expect(text).not.toMatch(/\.\d{7,}/); // never more than 6 dp, no float noise
    expect(text).not.toMatch(/\de[+-]?\d/i); // no exponents
  });

  it('filters with symbols', async () => {
    const { status, body } = await t.json('/latest?symbols=USD,TWI,IDR', { key });
    expect(status).toBe(200);
    expect(body).toEqual({ success: true, timestamp: 1778457600, base: 'AUD', date: '2026-05-11', rates: { USD: 0.7013, TWI: 64.6, IDR: 11935 } });
  });

  it('takes lower-case codes, trims blanks and ignores duplicates (D4)', async () => {
    const { status, body } = await t.json(`/latest?symbols=${encodeURIComponent('usd, eur ,USD,Eur')}`, { key });
    expect(status).toBe(200);
    expect(body.rates).toEqual({ USD: 0.7013, EUR: 0.5964 });
    expect(Object.keys(body.rates).sort()).toEqual(['EUR', 'USD']);
  });

  it('gives AUD as 1 when asked for explicitly (D3)', async () => {
    expect((await t.json('/latest?symbols=AUD', { key })).body.rates).toEqual({ AUD: 1 });
    expect((await t.json('/latest?symbols=aud,USD', { key })).body.rates).toEqual({ AUD: 1, USD: 0.7013 });
  });

  it('takes base=AUD in any case', async () => {
    for (const base of ['AUD', 'aud']) {
      const { status, body } = await t.json(`/latest?base=${base}&symbols=USD`, { key });
      expect(status).toBe(200);
      expect(body).toMatchObject({ base: 'AUD', rates: { USD: 0.7013 } });
    }
  });

  it.each([
    ['base=USD', /base/i],
    ['base=', /base/i],
    ['symbols=', /symbols/],
    ['symbols=%20,%20', /symbols/],
    ['symbols=XYZ', /XYZ/],
    ['symbols=USD,XYZ', /XYZ/],
    ['symbols=US', /US/],
    ['symbols=USDD', /USDD/],
    ['symbols=12A', /12A/],
    ['currency=USD', /currency/],
    ['symbols=USD&symbols=EUR', /symbols/],
  ])('400 bad_request for %s', async (query, info) => {
    expectError(await t.json(`/latest?${query}`, { key }), 400, 'bad_request', info);
  });
});

describe('GET /latest/{currency}', () => {
  it('answers the newest day with that one code', async () => {
    const { status, body, headers } = await t.json('/latest/USD', { key });
    expect(status).toBe(200);
    expect(body).toEqual({ success: true, timestamp: 1778457600, base: 'AUD', date: '2026-05-11', rates: { USD: 0.7013 } });
    expect(headers.get('cache-control')).toBe('no-store');
  });

  it('takes a lower-case code and answers it upper-case (D4)', async () => {
    const { status, body } = await t.json('/latest/usd', { key });
    expect(status).toBe(200);
    expect(body.rates).toEqual({ USD: 0.7013 });
  });

  it('serves TWI and whole-number VND', async () => {
    expect((await t.json('/latest/TWI', { key })).body.rates).toEqual({ TWI: 64.6 });
    const text = await (await t.request('/latest/VND', { key })).text();
    expect(text).toContain('"rates":{"VND":18410}');
  });

  it('gives "AUD": 1 for /latest/AUD on the newest date (D3)', async () => {
    const { status, body } = await t.json('/latest/AUD', { key });
    expect(status).toBe(200);
    expect(body).toEqual({ success: true, timestamp: 1778457600, base: 'AUD', date: '2026-05-11', rates: { AUD: 1 } });
  });

  it.each(['XYZ', 'US', 'USDD', '12A', 'U$D'])('400 bad_request for /latest/%s', async (code) => {
    expectError(await t.json(`/latest/${encodeURIComponent(code)}`, { key }), 400, 'bad_request');
  });

  it('400 for a query parameter it does not take', async () => {
    expectError(await t.json('/latest/USD?symbols=EUR', { key }), 400, 'bad_request', /symbols/);
  });

  it('404 not_found for a deeper path', async () => {
    expectError(await t.json('/latest/USD/extra', { key }), 404, 'not_found');
  });
});

describe('D10: /latest/{currency} is the newest day on which that currency has a rate', () => {
  let gaps: TestApp;
  let gapKey: string;
  // CHF stops after Wednesday, CAD after Thursday; Friday is the newest day overall.
  const days = [
    syntheticDay('2026-05-06'),
    syntheticDay('2026-05-07', { omit: (_d, c) => c === 'CHF' }),
    syntheticDay('2026-05-08', { omit: (_d, c) => c === 'CHF' || c === 'CAD' }),
  ];
  beforeAll(async () => {
    gaps = await startTestApp({ now: '2026-05-08T07:00:00Z' }); // Friday 17:00 Sydney
    await gaps.importTable(table(days));
    gapKey = await gaps.createKey();
  });
  afterAll(() => gaps.close());

  it('/latest is the newest day, without the codes missing from it', async () => {
    const { status, body } = await gaps.json('/latest', { key: gapKey });
    expect(status).toBe(200);
    expect(body).toEqual({ success: true, timestamp: unixOf('2026-05-08'), base: 'AUD', date: '2026-05-08', rates: asNumbers(days[2]!.rates) });
    expect(Object.keys(body.rates)).toHaveLength(18);
  });

  it('/latest/CAD is Thursday, /latest/CHF Wednesday, /latest/USD Friday', async () => {
    const cad = await gaps.json('/latest/CAD', { key: gapKey });
    expect(cad.status).toBe(200);
    expect(cad.body).toEqual({ success: true, timestamp: unixOf('2026-05-07'), base: 'AUD', date: '2026-05-07', rates: { CAD: Number(days[1]!.rates.CAD) } });
    const chf = await gaps.json('/latest/chf', { key: gapKey });
    expect(chf.status).toBe(200);
    expect(chf.body).toEqual({ success: true, timestamp: unixOf('2026-05-06'), base: 'AUD', date: '2026-05-06', rates: { CHF: Number(days[0]!.rates.CHF) } });
    const usd = await gaps.json('/latest/USD', { key: gapKey });
    expect(usd.body).toMatchObject({ date: '2026-05-08', rates: { USD: Number(days[2]!.rates.USD) } });
  });
});
