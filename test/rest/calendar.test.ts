// GET /calendar (D43 in docs/decisions.md): the RBA's publication calendar, checked against the
// RBA's real F11.1 download (seed/): every weekday of 2023-2025 without rates is a named NSW
// holiday or the Bank Holiday, none is a gap; after the newest rates, the business days to come.
// No key, never metered, cacheable like /symbols.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseRbaFile } from '../../src/rba/index.js';
import { appForFile, startTestApp } from '../support/app.js';
import { expectError } from '../support/expect.js';

const SEED = parseRbaFile(readFileSync(new URL('../../seed/f11.1-data_2026-05-11.csv', import.meta.url)), 'seed');
const storedIn = (year: number) => SEED.days.map((d) => d.date).filter((d) => d.startsWith(`${year}-`));

const t = appForFile({ now: '2026-05-12T03:00:00Z' }, SEED); // Tuesday 13:00 Sydney: the newest rates are Monday's

const HOLIDAYS_2024 = [
  { date: '2024-01-01', name: "New Year's Day" },
  { date: '2024-01-26', name: 'Australia Day' },
  { date: '2024-03-29', name: 'Good Friday' },
  { date: '2024-04-01', name: 'Easter Monday' },
  { date: '2024-04-25', name: 'Anzac Day' },
  { date: '2024-06-10', name: "King's Birthday" },
  { date: '2024-08-05', name: 'Bank Holiday' },
  { date: '2024-10-07', name: 'Labour Day' },
  { date: '2024-12-25', name: 'Christmas Day' },
  { date: '2024-12-26', name: 'Boxing Day' },
];

describe('GET /calendar on the real data', () => {
  it('a year: its stored rate days, its holidays by name, and no gap', async () => {
    const { status, body } = await t.json('/calendar?year=2024');
    expect(status).toBe(200);
    expect(body).toEqual({
      success: true,
      start_date: '2024-01-01',
      end_date: '2024-12-31',
      timezone: 'Australia/Sydney',
      rate_days: storedIn(2024),
      closed: HOLIDAYS_2024,
      missing: [],
      newest_rate_date: '2026-05-11',
      next_update_expected: '2026-05-12T06:00:00.000Z',
    });
    expect(body.rate_days).toHaveLength(252);
  });

  it.each([2023, 2025])('%i: every weekday without rates is a NSW holiday or the Bank Holiday, and nothing else is', async (year) => {
    const { body } = await t.json(`/calendar?year=${year}`);
    expect(body.missing).toEqual([]);
    expect(body.rate_days).toEqual(storedIn(year));
    expect(body.closed.map((c: { name: string }) => c.name)).toContain('Bank Holiday');
    const weekdays = body.rate_days.length + body.closed.length;
    let expected = 0;
    for (let d = new Date(`${year}-01-01T00:00:00Z`); d.getUTCFullYear() === year; d.setUTCDate(d.getUTCDate() + 1)) {
      if (d.getUTCDay() !== 0 && d.getUTCDay() !== 6) expected++;
    }
    // every weekday is a rate day or a closed one (2023's first, New Year's Day observed, is before the file begins)
    expect(weekdays).toBe(expected);
  });

  it('after the newest rates, the business days to the end of next year are expected, holidays left out', async () => {
    const { body } = await t.json('/calendar?start_date=2026-05-08&end_date=2026-06-12');
    expect(body.rate_days.slice(0, 4)).toEqual(['2026-05-08', '2026-05-11', '2026-05-12', '2026-05-13']);
    expect(body.rate_days).not.toContain('2026-06-08');
    expect(body.closed).toEqual([{ date: '2026-06-08', name: "King's Birthday" }]);
    expect(body.missing).toEqual([]);
    const nextYear = await t.json('/calendar?year=2027');
    expect(nextYear.status).toBe(200);
    expect(nextYear.body.closed).toContainEqual({ date: '2027-08-02', name: 'Bank Holiday' });
    expect(nextYear.body.closed).toContainEqual({ date: '2027-12-27', name: 'Christmas Day (substitute day)' });
    expect(nextYear.body.rate_days).toHaveLength(261 - 10); // 2027's weekdays less its ten weekday holidays
  });

  it('next_update_expected is /status’s', async () => {
    const calendar = await t.json('/calendar?year=2026');
    const status = await t.json('/status');
    expect(calendar.body.next_update_expected).toBe(status.body.next_update_expected);
  });
});

describe('GET /calendar as a public, cacheable answer', () => {
  it('needs no key, and a key sent with it is never metered', async () => {
    const key = await t.createKey('starter');
    const remaining = async () => Number((await t.request('/latest', { key })).headers.get('x-ratelimit-remaining-monthly'));
    const before = await remaining();
    for (let i = 0; i < 3; i++) {
      const response = await t.request('/calendar?year=2025', { key });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-ratelimit-remaining-monthly')).toBeNull();
    }
    expect(await remaining()).toBe(before - 1);
  });

  it('has CORS, an ETag that gives 304, Cache-Control for an hour, and answers HEAD and OPTIONS', async () => {
    const response = await t.request('/calendar?year=2025', { headers: { Origin: 'https://app.example.com' } });
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
    const etag = response.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect((await t.request('/calendar?year=2025', { headers: { 'If-None-Match': etag } })).status).toBe(304);
    expect((await t.request('/calendar?year=2024', { headers: { 'If-None-Match': etag } })).status).toBe(200);
    const head = await t.request('/calendar?year=2025', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect((await t.request('/calendar', { method: 'OPTIONS' })).status).toBe(204);
    expectError(await t.json('/calendar?year=2025', { method: 'POST' }), 405, 'method_not_allowed');
  });
});

describe('GET /calendar refuses', () => {
  it.each([
    ['/calendar', /either year .* or start_date and end_date/],
    ['/calendar?year=2024&start_date=2024-01-01&end_date=2024-01-31', /either year/],
    ['/calendar?start_date=2024-01-01', /Missing required parameter 'end_date'/],
    ['/calendar?end_date=2024-01-01', /Missing required parameter 'start_date'/],
    ['/calendar?year=24', /Invalid year '24'/],
    ['/calendar?year=2024x', /Invalid year/],
    ['/calendar?year=2017', /covers 2018-01-01 to 2027-12-31/],
    ['/calendar?year=2028', /covers 2018-01-01 to 2027-12-31/],
    ['/calendar?start_date=2017-12-31&end_date=2018-01-05', /covers 2018-01-01/],
    ['/calendar?start_date=2024-02-01&end_date=2024-01-31', /end_date must not be before start_date/],
    ['/calendar?start_date=2024-01-01&end_date=2025-01-02', /at most 366 days .* spans 367/],
    ['/calendar?start_date=2024-02-30&end_date=2024-03-01', /Invalid date '2024-02-30'/],
    ['/calendar?year=2024&symbols=USD', /Unknown parameter 'symbols'/],
    ['/calendar?year=2024&year=2025', /more than once/],
  ])('%s', async (path, info) => {
    expectError(await t.json(path), 400, 'bad_request', info);
  });

  it('takes 366 days, a leap year whole', async () => {
    expect((await t.json('/calendar?start_date=2024-01-01&end_date=2025-01-01')).status).toBe(200);
  });
});

describe('GET /calendar on data with gaps', () => {
  it('lists a weekday without rates that is no holiday as missing, and the holidays around it as closed', async () => {
    const own = await startTestApp({ now: '2026-05-12T03:00:00Z' });
    try {
      await own.importFixture('f11.1-data.csv');
      const { body } = await own.json('/calendar?start_date=2023-01-02&end_date=2023-01-10');
      expect(body.rate_days).toEqual(['2023-01-03', '2023-01-04']);
      expect(body.closed).toEqual([{ date: '2023-01-02', name: "New Year's Day" }]);
      expect(body.missing).toEqual(['2023-01-05', '2023-01-06', '2023-01-09', '2023-01-10']);
    } finally {
      await own.close();
    }
  });

  it('with nothing stored: every business day is expected, nothing is missing, and the next slot is the clock’s', async () => {
    const own = await startTestApp({ now: '2026-05-12T03:00:00Z' });
    try {
      const { status, body } = await own.json('/calendar?start_date=2026-05-11&end_date=2026-05-15');
      expect(status).toBe(200);
      expect(body).toMatchObject({ rate_days: ['2026-05-11', '2026-05-12', '2026-05-13', '2026-05-14', '2026-05-15'], missing: [], newest_rate_date: null });
      expect(body.next_update_expected).toBe('2026-05-12T06:00:00.000Z');
    } finally {
      await own.close();
    }
  });
});
