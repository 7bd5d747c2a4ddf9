// GET /{date} and /{date}/{currency} (docs/api.md §2.4, D3, D7, D14 in docs/decisions.md): exactly
// that date, or 404.
import { beforeAll, describe, expect, it } from 'vitest';
import { isBusinessDay } from '../../src/domain/calendar.js';
import { appForFile } from '../support/app.js';
import { expectError, unixOf } from '../support/expect.js';
import { asNumbers, syntheticTable } from '../support/rates.js';

// f11.1-data.csv, 03-Jan-2023, as served: CAD blank that day (D3), 61.40 → 61.4, 0.6400 → 0.64.
const JAN_3_2023 = {
  USD: 0.6828,
  TWI: 61.4,
  CNY: 4.6994,
  JPY: 88.48,
  EUR: 0.64,
  KRW: 867.16,
  GBP: 0.5656,
  SGD: 0.9134,
  INR: 56.51,
  THB: 23.47,
  NZD: 1.076,
  TWD: 20.97,
  MYR: 2.9975,
  IDR: 10635,
  VND: 16039,
  HKD: 5.3316,
  CHF: 0.631,
  PHP: 38.07,
  SDR: 0.5131,
};

// Every business day of January 2024, so weekends and holidays sit between days with data.
const JANUARY_2024 = syntheticTable('2024-01-01', '2024-01-31');

const t = appForFile({ now: '2026-05-12T03:00:00Z' }, 'f11.1-data.csv', JANUARY_2024); // Tuesday 2026-05-12, 13:00 Sydney
let key: string;
beforeAll(async () => {
  key = await t.createKey();
});

describe('GET /{date}', () => {
  it('answers the rates of exactly that date', async () => {
    const { status, body, headers } = await t.json('/2023-01-03', { key });
    expect(status).toBe(200);
    expect(body).toEqual({ success: true, timestamp: 1672704000, base: 'AUD', date: '2023-01-03', rates: JAN_3_2023 });
    expect(body.timestamp).toBe(unixOf('2023-01-03'));
    expect(headers.get('cache-control')).toBe('no-store');
  });

  it('prints the published digits exactly', async () => {
    const text = await (await t.request('/2023-01-03', { key })).text();
    expect(text).toContain('"TWI":61.4,');
    expect(text).toContain('"EUR":0.64,');
    expect(text).toContain('"NZD":1.076,');
    expect(text).toContain('"IDR":10635,');
    expect(text).toContain('"VND":16039,');
    expect(text).not.toContain('CAD');
    expect(text).not.toMatch(/\.\d{7,}/);
  });

  it('leaves out a currency the RBA did not publish that day (CHF on 2023-12-21), and has CAD from then', async () => {
    const { status, body } = await t.json('/2023-12-21', { key });
    expect(status).toBe(200);
    expect(body.rates).not.toHaveProperty('CHF');
    expect(body.rates.CAD).toBe(0.899);
    expect(Object.keys(body.rates)).toHaveLength(19);
  });

  it('serves a synthetic day exactly', async () => {
    const day = JANUARY_2024.days.find((d) => d.date === '2024-01-25')!;
    const { status, body } = await t.json('/2024-01-25', { key });
    expect(status).toBe(200);
    expect(body).toEqual({ success: true, timestamp: unixOf('2024-01-25'), base: 'AUD', date: '2024-01-25', rates: asNumbers(day.rates) });
  });

  it.each([
    ['a Saturday', '2024-01-06'],
    ['a Sunday', '2024-01-07'],
    ['Australia Day, an NSW public holiday', '2024-01-26'],
    ["New Year's Day", '2024-01-01'],
    ['a weekday without data', '2024-02-01'],
    ['today, before any publication', '2026-05-12'],
    ['the future', '2026-05-13'],
    ['far in the future', '2099-01-05'],
    ['before 2018', '2017-12-29'],
    ['a leap day without data', '2024-02-29'],
  ])('404 not_found for %s (%s)', async (_what, date) => {
    expectError(await t.json(`/${date}`, { key }), 404, 'not_found', `No data available for date ${date}`);
  });

  it('the holiday really is one, and the days around it have data', async () => {
    expect(isBusinessDay('2024-01-26')).toBe(false);
    expect((await t.json('/2024-01-25', { key })).status).toBe(200);
    expect((await t.json('/2024-01-29', { key })).status).toBe(200);
  });

  it.each(['2024-02-30', '2023-02-29', '2024-2-3', '20240105', '2024-13-01', '2024-00-10', '2024-01-00', '0000-00-00', '1', '2024--01-05', '-2024-01-05'])(
    '400 bad_request for /%s: digits and dashes that are not a real date (D14)',
    async (segment) => {
      expectError(await t.json(`/${segment}`, { key }), 400, 'bad_request', /date/i);
    },
  );

  it('400 for a query parameter it does not take', async () => {
    expectError(await t.json('/2023-01-03?start_date=2023-01-01', { key }), 400, 'bad_request', /start_date/);
  });
});

describe('GET /{date}/{currency}', () => {
  it('answers that code on that date', async () => {
    const { status, body } = await t.json('/2023-01-03/USD', { key });
    expect(status).toBe(200);
    expect(body).toEqual({ success: true, timestamp: 1672704000, base: 'AUD', date: '2023-01-03', rates: { USD: 0.6828 } });
  });

  it('takes a lower-case code (D4) and serves TWI as published', async () => {
    expect((await t.json('/2023-01-03/usd', { key })).body.rates).toEqual({ USD: 0.6828 });
    const text = await (await t.request('/2023-01-03/twi', { key })).text();
    expect(text).toContain('"rates":{"TWI":61.4}');
  });

  it('gives "AUD": 1 on a date with data', async () => {
    const { status, body } = await t.json('/2023-01-03/AUD', { key });
    expect(status).toBe(200);
    expect(body).toEqual({ success: true, timestamp: 1672704000, base: 'AUD', date: '2023-01-03', rates: { AUD: 1 } });
  });

  it('serves CAD from 2023-12-21 on', async () => {
    expect((await t.json('/2023-12-21/CAD', { key })).body.rates).toEqual({ CAD: 0.899 });
  });

  it('404 for a currency not published that day (CAD on 2023-01-03, CHF on 2023-12-21)', async () => {
    expectError(await t.json('/2023-01-03/CAD', { key }), 404, 'not_found', /CAD.*2023-01-03|2023-01-03.*CAD/);
    expectError(await t.json('/2023-12-21/chf', { key }), 404, 'not_found', /CHF.*2023-12-21|2023-12-21.*CHF/);
  });

  it('404 for a date without data, whatever the code', async () => {
    expectError(await t.json('/2024-01-06/USD', { key }), 404, 'not_found', 'No data available for date 2024-01-06');
    expectError(await t.json('/2024-01-06/AUD', { key }), 404, 'not_found', 'No data available for date 2024-01-06');
  });

  it.each([
    ['an unsupported code', '/2023-01-03/XYZ', /XYZ/],
    ['a 2-letter code', '/2023-01-03/US', /US/],
    ['a 4-letter code', '/2023-01-03/USDD', /USDD/],
    ['a code with a digit', '/2023-01-03/12A', /12A/],
    ['an impossible date', '/2024-02-30/USD', /date/i],
    ['a short date', '/2024-2-3/USD', /date/i],
    ['a bad code on a date without data (400 before 404)', '/2024-01-06/XYZ', /XYZ/],
    ['a bad code on a future date (400 before 404)', '/2030-01-07/ABC', /ABC/],
  ])('400 bad_request for %s (%s)', async (_what, path, info) => {
    expectError(await t.json(path, { key }), 400, 'bad_request', info);
  });
});

describe('unknown paths (D14)', () => {
  it.each(['/foo', '/2024-01-05x', '/2024-01-05/USD/extra', '/latest/USD/extra', '/api/latest', '/Latest', '/symbols/USD', '/convert/USD'])(
    '404 not_found for %s',
    async (path) => {
      expectError(await t.json(path, { key }), 404, 'not_found');
    },
  );
});
