// GET /timeseries (docs/api.md §2.6, D8, D13 in docs/decisions.md): the business days in the range
// that have data.
import { beforeAll, describe, expect, it } from 'vitest';
import { isBusinessDay } from '../../src/domain/calendar.js';
import { appForFile } from '../support/app.js';
import { expectError } from '../support/expect.js';
import { asNumbers, businessDays, served, syntheticTable } from '../support/rates.js';

// The first quarter of 2024 (New Year, Australia Day and Good Friday off), CAD missing on 14 February.
const Q1_2024 = syntheticTable('2024-01-01', '2024-03-31', { omit: (date, code) => date === '2024-02-14' && code === 'CAD' });

const t = appForFile({ now: '2026-05-12T03:00:00Z' }, 'f11.1-data.csv', Q1_2024);
let key: string;
beforeAll(async () => {
  key = await t.createKey();
});

const series = (query: string) => t.json(`/timeseries?${query}`, { key });

describe('GET /timeseries', () => {
  it('answers the days with data in the range, nothing else', async () => {
    const { status, body, headers } = await series('start_date=2023-01-01&end_date=2023-01-31&symbols=USD,TWI');
    expect(status).toBe(200);
    expect(body).toEqual({
      success: true,
      timeseries: true,
      start_date: '2023-01-01',
      end_date: '2023-01-31',
      base: 'AUD',
      rates: {
        '2023-01-03': { USD: 0.6828, TWI: 61.4 },
        '2023-01-04': { USD: 0.6811, TWI: 61.5 },
      },
    });
    expect(headers.get('cache-control')).toBe('no-store');
  });

  it('a quarter of business days: every one, ascending, all codes, no weekend or holiday', async () => {
    const { status, body } = await series('start_date=2024-01-01&end_date=2024-03-31');
    expect(status).toBe(200);
    const expected = Object.fromEntries(Q1_2024.days.map((d) => [d.date, asNumbers(d.rates)]));
    expect(body).toEqual({ success: true, timeseries: true, start_date: '2024-01-01', end_date: '2024-03-31', base: 'AUD', rates: expected });
    const dates = Object.keys(body.rates);
    expect(dates).toEqual(businessDays('2024-01-01', '2024-03-31'));
    expect(dates).toEqual([...dates].sort());
    expect(dates).toHaveLength(62); // 65 weekdays less New Year's Day, Australia Day and Good Friday
    for (const holiday of ['2024-01-01', '2024-01-26', '2024-03-29']) {
      expect(isBusinessDay(holiday)).toBe(false);
      expect(dates).not.toContain(holiday);
    }
    expect(dates.every(isBusinessDay)).toBe(true);
  });

  it('prints every value with its published digits (IDR and VND whole)', async () => {
    const text = await (await t.request('/timeseries?start_date=2024-02-01&end_date=2024-02-29&symbols=IDR,VND,JPY,USD', { key })).text();
    for (const day of Q1_2024.days.filter((d) => d.date >= '2024-02-01' && d.date <= '2024-02-29')) {
      const segment = new RegExp(`"${day.date}":(\\{[^}]*\\})`).exec(text)?.[1];
      expect(segment, day.date).toBeDefined();
      for (const code of ['IDR', 'VND', 'JPY', 'USD'] as const)
        expect(segment).toMatch(new RegExp(`"${code}":${served(day.rates[code]!).replace('.', '\\.')}[,}]`));
      expect(day.rates.IDR).toMatch(/^\d+$/);
    }
    expect(text).not.toMatch(/\.\d{7,}/);
  });

  it('leaves a currency out of the day it was not published (a gap)', async () => {
    const { status, body } = await series('start_date=2024-02-13&end_date=2024-02-15&symbols=CAD,USD');
    expect(status).toBe(200);
    const [d13, d14, d15] = Q1_2024.days.filter((d) => d.date >= '2024-02-13' && d.date <= '2024-02-15');
    expect(body.rates).toEqual({
      '2024-02-13': asNumbers(d13!.rates, ['CAD', 'USD']),
      '2024-02-14': asNumbers(d14!.rates, ['USD']),
      '2024-02-15': asNumbers(d15!.rates, ['CAD', 'USD']),
    });
  });

  it('with symbols, a day on which none of them was published is not a day with data (D8)', async () => {
    const { status, body } = await series('start_date=2024-02-13&end_date=2024-02-15&symbols=CAD');
    expect(status).toBe(200);
    expect(Object.keys(body.rates)).toEqual(['2024-02-13', '2024-02-15']);
    const gap = await series('start_date=2024-02-14&end_date=2024-02-14&symbols=cad');
    expectError(gap, 404, 'not_found', 'No data available between 2024-02-14 and 2024-02-14');
  });

  it('start_date equal to end_date is that one day', async () => {
    const { status, body } = await series('start_date=2023-01-03&end_date=2023-01-03');
    expect(status).toBe(200);
    expect(Object.keys(body.rates)).toEqual(['2023-01-03']);
    expect(body.rates['2023-01-03']).toMatchObject({ USD: 0.6828, TWI: 61.4, IDR: 10635 });
    expect(body.rates['2023-01-03']).not.toHaveProperty('CAD');
  });

  it('takes lower-case symbols, trims blanks, ignores duplicates, gives AUD as 1 (D3, D4)', async () => {
    const { status, body } = await series(`start_date=2023-01-03&end_date=2023-01-04&symbols=${encodeURIComponent('usd, aud ,USD')}`);
    expect(status).toBe(200);
    expect(body.rates).toEqual({ '2023-01-03': { USD: 0.6828, AUD: 1 }, '2023-01-04': { USD: 0.6811, AUD: 1 } });
  });

  it('takes base=AUD', async () => {
    const { status, body } = await series('start_date=2023-01-03&end_date=2023-01-04&symbols=EUR&base=aud');
    expect(status).toBe(200);
    expect(body).toMatchObject({ base: 'AUD', rates: { '2023-01-03': { EUR: 0.64 }, '2023-01-04': { EUR: 0.6437 } } });
  });

  it('a range running into the future answers the days up to now and echoes the dates asked for', async () => {
    const { status, body } = await series('start_date=2026-05-01&end_date=2026-06-30&symbols=USD');
    expect(status).toBe(200);
    expect(body).toEqual({
      success: true,
      timeseries: true,
      start_date: '2026-05-01',
      end_date: '2026-06-30',
      base: 'AUD',
      rates: { '2026-05-11': { USD: 0.7013 } },
    });
  });

  it.each([
    ['a range without data', 'start_date=2023-02-01&end_date=2023-02-28'],
    ['a single weekend day', 'start_date=2024-01-06&end_date=2024-01-06'],
    ['a weekend', 'start_date=2024-01-06&end_date=2024-01-07'],
    ['a holiday', 'start_date=2024-01-26&end_date=2024-01-26'],
    ['the future', 'start_date=2026-06-01&end_date=2026-06-30'],
    ['before 2018', 'start_date=2017-11-01&end_date=2017-12-31'],
  ])('404 not_found for %s', async (_what, query) => {
    expectError(await series(query), 404, 'not_found');
  });

  it.each([
    ['missing start_date', 'end_date=2024-01-31', /start_date/],
    ['missing end_date', 'start_date=2024-01-01', /end_date/],
    ['no parameters', '', /start_date/],
    ['empty start_date', 'start_date=&end_date=2024-01-31', /start_date/],
    ['an impossible start_date', 'start_date=2024-02-30&end_date=2024-03-05', /start_date/],
    ['a short end_date', 'start_date=2024-01-01&end_date=2024-2-3', /end_date/],
    ['a compact date', 'start_date=20240101&end_date=2024-01-31', /start_date/],
    ['end_date before start_date', 'start_date=2024-01-31&end_date=2024-01-01', /end_date/],
    ['base=USD', 'start_date=2024-01-01&end_date=2024-01-31&base=USD', /base/i],
    ['empty symbols', 'start_date=2024-01-01&end_date=2024-01-31&symbols=', /symbols/],
    ['an unsupported symbol', 'start_date=2024-01-01&end_date=2024-01-31&symbols=USD,XYZ', /XYZ/],
    ['a badly formed symbol', 'start_date=2024-01-01&end_date=2024-01-31&symbols=US', /US/],
    ['an unknown parameter', 'start_date=2024-01-01&end_date=2024-01-31&date=2024-01-05', /date/],
    ['a repeated parameter', 'start_date=2024-01-01&start_date=2024-01-02&end_date=2024-01-31', /start_date/],
    ['a bad symbol in a range without data (400 before 404)', 'start_date=2023-02-01&end_date=2023-02-28&symbols=XYZ', /XYZ/],
  ])('400 bad_request for %s', async (_what, query, info) => {
    expectError(await series(query), 400, 'bad_request', info);
  });
});
