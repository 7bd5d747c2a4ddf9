// GET /fluctuation (issue 12; the time-series rules of D8 and D13 in docs/decisions.md): start,
// end, change, range and mean of each code over a range. Every expected figure is worked out here
// from the fixture file with decimal.js, and compared with the response's bytes.
import { readFileSync } from 'node:fs';
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLISHED_CODES } from '../../src/domain/currencies.js';
import { parseRbaFile } from '../../src/rba/index.js';
import { FIXTURES, startTestApp, type TestApp } from '../support/app.js';
import { expectError } from '../support/expect.js';
import { BILLING_DAY, MONTHLY, NOW, PERIOD, account } from '../limits/support.js';

const FIXTURE = parseRbaFile(readFileSync(new URL('f11.1-data.csv', FIXTURES)), 'f11.1-data.csv');
const D = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_UP }); // half away from zero

/** The figures of `code` over the fixture's days in [start, end], as the JSON text the issue asks for. */
function expectedFigures(code: string, start: string, end: string): string | null {
  const values = FIXTURE.days
    .filter((day) => day.date >= start && day.date <= end)
    .map((day) => (code === 'AUD' ? '1' : (day.rates as Record<string, string | undefined>)[code]))
    .filter((value): value is string => value !== undefined)
    .map((value) => new D(value));
  if (values.length === 0) return null;
  const first = values[0]!;
  const last = values.at(-1)!;
  const change = last.minus(first);
  const figures = {
    start_rate: first,
    end_rate: last,
    change,
    change_pct: change.div(first).times(100).toDecimalPlaces(6),
    min: D.min(...values),
    max: D.max(...values),
    mean: D.sum(...values)
      .div(values.length)
      .toDecimalPlaces(6),
  };
  const numbers = Object.entries(figures).map(([name, value]) => `"${name}":${value.toFixed()}`);
  return `{${numbers.join(',')},"days":${values.length}}`;
}

function expectedBody(start: string, end: string, codes: readonly string[]): string {
  const rates = codes.flatMap((code) => {
    const figures = expectedFigures(code, start, end);
    return figures === null ? [] : [`"${code}":${figures}`];
  });
  return `{"success":true,"fluctuation":true,"start_date":"${start}","end_date":"${end}","base":"AUD","rates":{${rates.join(',')}}}`;
}

let t: TestApp;
let key: string;
let businessKey: string;
beforeAll(async () => {
  t = await startTestApp({ now: NOW });
  await t.importFixture('f11.1-data.csv');
  key = await t.createKey('professional');
  businessKey = await t.createKey('business');
});
afterAll(() => t.close());

const fluctuation = (query: string, k = key) => t.request(`/fluctuation?${query}`, { key: k });

describe('GET /fluctuation', () => {
  it('every code over a year, to the last decimal, in the order of the code list', async () => {
    const response = await fluctuation('start_date=2023-01-01&end_date=2023-12-31', businessKey);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const text = await response.text();
    expect(text).toBe(expectedBody('2023-01-01', '2023-12-31', PUBLISHED_CODES));
    // CAD is first published on 2023-12-21: one day of it; USD has all four.
    const body = JSON.parse(text);
    expect(body.rates.CAD.days).toBe(1);
    expect(body.rates.USD).toMatchObject({ start_rate: 0.6828, end_rate: 0.6712, days: 4 });
  });

  it('the codes of symbols in their order; AUD is 1 throughout; a code without a rate is left out', async () => {
    const response = await fluctuation(`start_date=2023-12-01&end_date=2024-01-31&symbols=${encodeURIComponent('chf,AUD,CAD,IDR')}`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toBe(expectedBody('2023-12-01', '2024-01-31', ['CHF', 'AUD', 'CAD', 'IDR']));
    expect(Object.keys(JSON.parse(text).rates)).toEqual(['CHF', 'AUD', 'CAD', 'IDR']);
    // CHF is blank on 2023-12-21: only 2023-12-20 counts.
    expect(JSON.parse(text).rates.CHF).toEqual({
      start_rate: 0.5805,
      end_rate: 0.5805,
      change: 0,
      change_pct: 0,
      min: 0.5805,
      max: 0.5805,
      mean: 0.5805,
      days: 1,
    });
  });

  it('a range in which no asked code has a rate answers 200 with empty rates', async () => {
    const response = await fluctuation('start_date=2023-01-03&end_date=2023-01-04&symbols=CAD');
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(expectedBody('2023-01-03', '2023-01-04', []));
  });

  it('negative changes and rounded shares, over the whole stored range', async () => {
    const response = await fluctuation('start_date=2025-06-01&end_date=2026-05-31&symbols=USD,JPY,VND,TWI', businessKey);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(expectedBody('2025-06-01', '2026-05-31', ['USD', 'JPY', 'VND', 'TWI']));
  });

  it('is metered like /timeseries: a success takes a unit, a failure none', async () => {
    const quota = async () => Number((await t.request('/latest?symbols=USD', { key })).headers.get('x-ratelimit-remaining-monthly'));
    const before = await quota();
    expect((await fluctuation('start_date=2023-01-03&end_date=2023-01-04')).status).toBe(200);
    expect((await fluctuation('start_date=2023-02-01&end_date=2023-02-28')).status).toBe(404);
    expect((await fluctuation('start_date=2023-02-01')).status).toBe(400);
    expect(await quota()).toBe(before - 2); // the fluctuation and the second /latest
  });

  it.each([
    ['a range without data', 'start_date=2023-02-01&end_date=2023-02-28'],
    ['a weekend', 'start_date=2024-01-06&end_date=2024-01-07'],
    ['the future', 'start_date=2026-06-01&end_date=2026-06-30'],
  ])('404 not_found for %s', async (_what, query) => {
    expectError(await t.json(`/fluctuation?${query}`, { key }), 404, 'not_found', /No data available between/);
  });

  it.each([
    ['missing start_date', 'end_date=2024-01-31', /start_date/],
    ['an impossible end_date', 'start_date=2024-02-01&end_date=2024-02-30', /end_date/],
    ['end_date before start_date', 'start_date=2024-01-31&end_date=2024-01-01', /end_date must not be before start_date/],
    ['an unsupported symbol', 'start_date=2024-01-01&end_date=2024-01-31&symbols=USD,XYZ', /XYZ/],
    ['base=USD', 'start_date=2024-01-01&end_date=2024-01-31&base=USD', /base/i],
    ['an unknown parameter', 'start_date=2024-01-01&end_date=2024-01-31&date=2024-01-05', /date/],
  ])('400 bad_request for %s', async (_what, query, info) => {
    expectError(await t.json(`/fluctuation?${query}`, { key }), 400, 'bad_request', info);
  });

  it('401 without a key, 403 plan_restricted beyond the plan (D13)', async () => {
    const none = await t.json('/fluctuation?start_date=2023-01-03&end_date=2023-01-04');
    expectError(none, 401, 'unauthorized');
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expectError(await t.json('/fluctuation?start_date=2023-01-01&end_date=2023-12-31', { key }), 403, 'plan_restricted', /90 days/);
    const free = await t.createKey('free');
    expectError(await t.json('/fluctuation?start_date=2026-05-01&end_date=2026-05-11', { key: free }), 403, 'plan_restricted', /no time-series access/);
    const starter = await t.createKey('starter');
    expectError(await t.json('/fluctuation?start_date=2026-01-05&end_date=2026-01-09', { key: starter }), 403, 'plan_restricted', /last 30 days/);
  });

  it('429 once the quota is used up; a request that fails takes no unit and stays its own error', async () => {
    const { key: full } = await account(t, 'professional', { billingDay: BILLING_DAY, used: MONTHLY.professional - 1, period: PERIOD });
    expectError(await t.json('/fluctuation?start_date=2023-02-01&end_date=2023-02-28', { key: full }), 404, 'not_found');
    expectError(await t.json('/fluctuation?start_date=2023-02-01', { key: full }), 400, 'bad_request');
    const last = await t.json('/fluctuation?start_date=2023-01-03&end_date=2023-01-04&symbols=USD', { key: full });
    expect(last.status).toBe(200);
    expect(last.headers.get('x-ratelimit-remaining-monthly')).toBe('0');
    expectError(await t.json('/fluctuation?start_date=2023-01-03&end_date=2023-01-04&symbols=USD', { key: full }), 429, 'rate_limit_exceeded');
  });
});
