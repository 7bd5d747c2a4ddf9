// GET /averages (issue 30; D37 in docs/decisions.md): the figures accountants file. Every expected
// figure is worked out here from the fixture file itself, read by hand and summed with BigInt in
// millionths (not with the service's code), and compared with the response's bytes.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { PUBLISHED_CODES } from '../../src/domain/currencies.js';
import { appForFile, FIXTURES } from '../support/app.js';
import { expectError } from '../support/expect.js';
import { account, stored } from '../limits/support.js';

// ---- the fixture, read independently: 'DD-Mon-YYYY,v1,…' rows under the Units row ----
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const lines = readFileSync(new URL('f11.1-fy2024.csv', FIXTURES), 'utf8')
  .replace(/^\uFEFF/, '')
  .split('\n');
const unitsRow = lines.find((line) => line.startsWith('Units,'))!.split(',');
const columns = unitsRow.map((unit) => (unit === 'Index' ? 'TWI' : unit));
/** date → code → value text as printed in the file */
const FILE_DAYS: { date: string; values: Map<string, string> }[] = lines
  .filter((line) => /^\d{2}-[A-Z][a-z]{2}-\d{4},/.test(line))
  .map((line) => {
    const cells = line.split(',');
    const [dd, mon, yyyy] = cells[0]!.split('-');
    const date = `${yyyy}-${String(MONTHS.indexOf(mon!) + 1).padStart(2, '0')}-${dd}`;
    const values = new Map<string, string>();
    cells.forEach((cell, i) => {
      if (i > 0 && cell !== '' && (PUBLISHED_CODES as readonly string[]).includes(columns[i]!)) values.set(columns[i]!, cell);
    });
    return { date, values };
  });

const MICRO = 1_000_000n;
/** '0.6830' → 683000n millionths */
function micro(text: string): bigint {
  const [whole, fraction = ''] = text.split('.');
  return BigInt(whole!) * MICRO + BigInt(fraction.padEnd(6, '0'));
}
/** millionths → the shortest decimal text ('683000' → '0.683') */
function decimal(value: bigint): string {
  const fraction = (value % MICRO).toString().padStart(6, '0').replace(/0+$/, '');
  return `${value / MICRO}${fraction ? `.${fraction}` : ''}`;
}

/** The JSON text of `code`'s figures over [start, end] (days up to `today`), or null when it has no value there. */
function figures(code: string, start: string, end: string): string | null {
  const days = FILE_DAYS.filter((d) => d.date >= start && d.date <= end && (code === 'AUD' || d.values.has(code)));
  if (days.length === 0) return null;
  const values = days.map((d) => (code === 'AUD' ? MICRO : micro(d.values.get(code)!)));
  const sum = values.reduce((a, b) => a + b, 0n);
  const n = BigInt(values.length);
  // the exact mean sum / n in millionths, rounded half away from zero (all values are positive)
  const mean = sum / n + (2n * (sum % n) >= n ? 1n : 0n);
  const min = values.reduce((a, b) => (b < a ? b : a));
  const max = values.reduce((a, b) => (b > a ? b : a));
  return (
    `{"mean":${decimal(mean)},"days":${values.length},"first_date":"${days[0]!.date}","last_date":"${days.at(-1)!.date}",` +
    `"end_rate":${decimal(values.at(-1)!)},"min":${decimal(min)},"max":${decimal(max)}}`
  );
}

function ratesText(codes: readonly string[], start: string, end: string): string {
  return `{${codes.flatMap((code) => (figures(code, start, end) === null ? [] : [`"${code}":${figures(code, start, end)}`])).join(',')}}`;
}

const lastOf = (month: string) => new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0)).toISOString().slice(0, 10);

interface Expected {
  period: string | null;
  start: string;
  end: string;
  complete: boolean;
  codes?: readonly string[];
  byMonth?: boolean;
  /** the last day whose rates are served (today in Sydney) */
  today?: string;
}

function expectedBody({ period, start, end, complete, codes = PUBLISHED_CODES, byMonth = false, today = '9999-12-31' }: Expected): string {
  const upTo = end < today ? end : today;
  let body =
    `{"success":true,"averages":true,"period":${period === null ? 'null' : `"${period}"`},"start_date":"${start}","end_date":"${end}",` +
    `"complete":${complete},"base":"AUD","rates":${ratesText(codes, start, upTo)}`;
  if (byMonth) {
    const months: string[] = [];
    for (let month = start.slice(0, 7); month <= end.slice(0, 7);) {
      const from = `${month}-01` < start ? start : `${month}-01`;
      const to = lastOf(month) > upTo ? upTo : lastOf(month);
      months.push(`"${month}":${ratesText(codes, from, to)}`);
      const next = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 1));
      month = next.toISOString().slice(0, 7);
    }
    body += `,"months":{${months.join(',')}}`;
  }
  return `${body}}`;
}

/** The decimal places the fixture prints a code's values with (AUD, the base, is 1). */
function placesInFile(code: string): number {
  const value = FILE_DAYS.find((d) => d.values.has(code))?.values.get(code) ?? '1';
  return value.includes('.') ? value.length - value.indexOf('.') - 1 : 0;
}

function expectedCsv({ start, end, codes = PUBLISHED_CODES, byMonth = false }: Expected): string {
  const rows = (prefix: string[], from: string, to: string) =>
    codes.flatMap((code) => {
      const f = figures(code, from, to);
      if (f === null) return [];
      const o = JSON.parse(f) as Record<string, number | string>;
      // the CSV's cells are the JSON's digits, written with fixed places (D48): the mean with 6, a
      // rate with as many as the file prints that code's values with
      const digits = (name: string, places: number) => {
        const text = new RegExp(`"${name}":([0-9.]+)`).exec(f)![1]!;
        const [whole, fraction = ''] = text.split('.');
        return places === 0 ? whole! : `${whole}.${fraction.padEnd(places, '0')}`;
      };
      const published = placesInFile(code);
      return [
        [
          ...prefix,
          code,
          digits('mean', 6),
          o.days,
          o.first_date,
          o.last_date,
          digits('end_rate', published),
          digits('min', published),
          digits('max', published),
        ].join(','),
      ];
    });
  if (!byMonth) return ['code,mean,days,first_date,last_date,end_rate,min,max', ...rows([], start, end)].join('\n') + '\n';
  const lines = ['month,code,mean,days,first_date,last_date,end_rate,min,max'];
  for (let month = start.slice(0, 7); month <= end.slice(0, 7);) {
    lines.push(...rows([month], `${month}-01` < start ? start : `${month}-01`, lastOf(month) > end ? end : lastOf(month)));
    month = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 1)).toISOString().slice(0, 7);
  }
  return lines.join('\n') + '\n';
}

// Wednesday 14 August 2024, 13:00 in Sydney: FY2024 is over, the calendar year 2024 runs.
const NOW = '2024-08-14T03:00:00Z';
const t = appForFile({ now: NOW }, 'f11.1-fy2024.csv');
let key: string;
let email: string;
beforeAll(async () => {
  ({ key, email } = await account(t, 'professional'));
});

const averages = (query: string, k = key, headers: Record<string, string> = {}) => t.request(`/averages?${query}`, { key: k, headers });

describe('the fixture has the shape the tests need', () => {
  it('a whole financial year of business days; CAD starts and CHF stops mid-year; USD skips a day', () => {
    expect(FILE_DAYS[0]!.date).toBe('2023-07-03');
    expect(FILE_DAYS.at(-1)!.date).toBe('2024-06-28');
    expect(FILE_DAYS.length).toBeGreaterThan(245);
    const cad = FILE_DAYS.filter((d) => d.values.has('CAD'));
    const chf = FILE_DAYS.filter((d) => d.values.has('CHF'));
    expect([cad[0]!.date, cad.at(-1)!.date]).toEqual(['2023-12-21', '2024-06-28']);
    expect([chf[0]!.date, chf.at(-1)!.date]).toEqual(['2023-07-03', '2023-12-20']);
    expect(FILE_DAYS.find((d) => d.date === '2024-03-12')!.values.has('USD')).toBe(false);
  });
});

describe('GET /averages: every figure of every form, to the last digit', () => {
  it('FY2024, every code: CAD from mid-year, CHF until mid-year, USD without its missing day', async () => {
    const response = await averages('period=FY2024');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const text = await response.text();
    expect(text).toBe(expectedBody({ period: 'FY2024', start: '2023-07-01', end: '2024-06-30', complete: true }));
    const body = JSON.parse(text);
    expect(body.rates.CAD.first_date).toBe('2023-12-21');
    expect(body.rates.CHF.last_date).toBe('2023-12-20');
    expect(body.rates.USD.days).toBe(FILE_DAYS.length - 1);
  });

  it.each([
    ['2023', '2023-01-01', '2023-12-31'],
    ['2023-H2', '2023-07-01', '2023-12-31'],
    ['2024-H1', '2024-01-01', '2024-06-30'],
    ['2023-Q3', '2023-07-01', '2023-09-30'],
    ['2023-Q4', '2023-10-01', '2023-12-31'],
    ['2024-Q1', '2024-01-01', '2024-03-31'],
    ['2024-Q2', '2024-04-01', '2024-06-30'],
    ...['2023-07', '2023-08', '2023-09', '2023-10', '2023-11', '2023-12', '2024-01', '2024-02', '2024-03', '2024-04', '2024-05', '2024-06'].map(
      (month) => [month, `${month}-01`, lastOf(month)] as [string, string, string],
    ),
  ])('period=%s', async (period, start, end) => {
    const response = await averages(`period=${period}`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(expectedBody({ period, start, end, complete: true }));
  });

  it('the calendar year still running: complete false, its own bounds, the days up to today', async () => {
    t.setNow('2024-05-15T03:00:00Z'); // Wednesday 15 May 2024, 13:00 in Sydney; the store holds days after it
    try {
      const response = await averages('period=2024&symbols=USD,CAD,CHF,AUD');
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(text).toBe(
        expectedBody({ period: '2024', start: '2024-01-01', end: '2024-12-31', complete: false, codes: ['USD', 'CAD', 'AUD'], today: '2024-05-15' }),
      );
      expect(JSON.parse(text).rates.USD.last_date).toBe('2024-05-15');
      // the period's last day is today: still running
      const may = await t.json('/averages?start_date=2024-05-01&end_date=2024-05-15&symbols=USD', { key });
      expect(may.body.complete).toBe(false);
      expect((await t.json('/averages?start_date=2024-05-01&end_date=2024-05-14&symbols=USD', { key })).body.complete).toBe(true);
    } finally {
      t.setNow(NOW);
    }
  });

  it('a custom range, codes of symbols in their order, in any case; AUD is 1', async () => {
    const response = await averages(`start_date=2023-11-15&end_date=2024-02-20&symbols=${encodeURIComponent('chf, cad,AUD,IDR,twi,usd')}`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(
      expectedBody({ period: null, start: '2023-11-15', end: '2024-02-20', complete: true, codes: ['CHF', 'CAD', 'AUD', 'IDR', 'TWI', 'USD'] }),
    );
  });

  it('a period in lower case is read as in upper case (fy2024, 2024-q1, 2023-h2)', async () => {
    for (const [given, period, start, end] of [
      ['fy2024', 'FY2024', '2023-07-01', '2024-06-30'],
      ['2024-q1', '2024-Q1', '2024-01-01', '2024-03-31'],
      ['2023-h2', '2023-H2', '2023-07-01', '2023-12-31'],
    ] as const) {
      const response = await averages(`period=${given}&symbols=USD,JPY`);
      expect(await response.text()).toBe(expectedBody({ period, start, end, complete: true, codes: ['USD', 'JPY'] }));
    }
  });

  it('interval=month: each calendar month of FY2024, every code', async () => {
    const response = await averages('period=FY2024&interval=month');
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toBe(expectedBody({ period: 'FY2024', start: '2023-07-01', end: '2024-06-30', complete: true, byMonth: true }));
    expect(Object.keys(JSON.parse(text).months)).toHaveLength(12);
  });

  it('interval=month on a custom range clips its first and last month; a month without values is empty', async () => {
    t.setNow('2024-05-15T03:00:00Z');
    try {
      const response = await averages('start_date=2024-03-20&end_date=2024-07-10&symbols=CHF,USD&interval=month');
      expect(await response.text()).toBe(
        expectedBody({ period: null, start: '2024-03-20', end: '2024-07-10', complete: false, codes: ['CHF', 'USD'], byMonth: true, today: '2024-05-15' }),
      );
    } finally {
      t.setNow(NOW);
    }
  });

  it('CSV: one row per code, the digits of the JSON with fixed places; with interval=month one row per month and code', async () => {
    const csv = await averages('period=FY2024', key, { Accept: 'text/csv' });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe('attachment; filename="aud-averages_FY2024.csv"');
    expect(await csv.text()).toBe(expectedCsv({ period: 'FY2024', start: '2023-07-01', end: '2024-06-30', complete: true }));
    const months = await averages('period=2023-H2&interval=month&symbols=CAD,CHF', key, { Accept: 'text/csv' });
    expect(months.headers.get('content-disposition')).toBe('attachment; filename="aud-averages_2023-H2_months.csv"');
    expect(await months.text()).toBe(
      expectedCsv({ period: '2023-H2', start: '2023-07-01', end: '2023-12-31', complete: true, codes: ['CAD', 'CHF'], byMonth: true }),
    );
    const range = await averages('start_date=2023-12-01&end_date=2023-12-31&symbols=USD', key, { Accept: 'text/csv' });
    expect(range.headers.get('content-disposition')).toBe('attachment; filename="aud-averages_2023-12-01_2023-12-31.csv"');
  });

  it('a code without a value in the range is left out; a range of 365 days is allowed', async () => {
    const response = await averages('start_date=2024-01-01&end_date=2024-03-31&symbols=CHF,USD');
    expect(Object.keys(JSON.parse(await response.text()).rates)).toEqual(['USD']);
    expect((await averages('start_date=2023-07-01&end_date=2024-06-30&symbols=USD')).status).toBe(200);
  });
});

describe('GET /averages: metering, ETag, freshness', () => {
  it('a success takes one unit; a 304 to its ETag counts like a 200; stale data says so', async () => {
    const before = (await stored(t, email)).used;
    const first = await averages('period=2024-Q2&symbols=USD');
    expect(first.status).toBe(200);
    // the newest day is 2024-06-28 and the clock is in August: the data is stale (D23)
    expect(first.headers.get('x-data-stale')).toBe('true');
    expect(first.headers.get('x-rba-source-date')).toBe('2024-06-28');
    const etag = first.headers.get('etag')!;
    expect(etag).toBeTruthy();
    const again = await averages('period=2024-Q2&symbols=USD', key, { 'If-None-Match': etag });
    expect(again.status).toBe(304);
    expect((await stored(t, email)).used).toBe(before + 2);
  });
});

describe('GET /averages: every refusal, none of which counts', () => {
  it.each([
    ['both forms', 'period=2024&start_date=2024-01-01&end_date=2024-01-31', /either period .* or start_date and end_date/],
    ['period with only start_date', 'period=2024&start_date=2024-01-01', /not both/],
    ['neither form', 'symbols=USD', /either period/],
    ['nothing at all', '', /either period/],
    ['start_date alone', 'start_date=2024-01-01', /end_date/],
    ['end_date alone', 'end_date=2024-01-01', /start_date/],
    ['FY24', 'period=FY24', /Invalid period 'FY24'/],
    ['2024-13', 'period=2024-13', /Invalid period '2024-13'/],
    ['2024-Q5', 'period=2024-Q5', /Invalid period/],
    ['2024-H3', 'period=2024-H3', /Invalid period/],
    ['2024-00', 'period=2024-00', /Invalid period/],
    ['FY0000', 'period=FY0000', /Invalid period/],
    // there is no year 0: not a period outside the data but no period at all
    ['0000', 'period=0000', /Invalid period '0000'/],
    ['0000-Q1', 'period=0000-Q1', /Invalid period/],
    ['0000-01', 'period=0000-01', /Invalid period/],
    ['an empty period', 'period=', /Invalid period/],
    ['a date as period', 'period=2024-01-05', /Invalid period/],
    ['a range over 365 days', 'start_date=2023-07-01&end_date=2024-07-01', /at most 365 days; 2023-07-01 to 2024-07-01 spans 366/],
    ['end before start', 'start_date=2024-02-01&end_date=2024-01-31', /end_date must not be before start_date/],
    ['an impossible date', 'start_date=2024-02-30&end_date=2024-03-31', /start_date/],
    ['interval=week', 'period=2024&interval=week', /interval/],
    ['an empty interval', 'period=2024&interval=', /interval/],
    ['an unsupported symbol', 'period=2024&symbols=USD,XYZ', /XYZ/],
    ['base=USD', 'period=2024&base=USD', /base/],
    ['an unknown parameter', 'period=2024&date=2024-01-05', /date/],
    ['a repeated period', 'period=2024&period=2023', /more than once/],
  ])('400 bad_request: %s', async (_what, query, info) => {
    const before = (await stored(t, email)).used;
    expectError(await t.json(`/averages?${query}`, { key }), 400, 'bad_request', info);
    expect((await stored(t, email)).used).toBe(before);
  });

  it.each([
    ['a period without any rate day', 'period=2019-Q1'],
    ['a future period', 'period=2025'],
    ['a weekend', 'start_date=2024-01-06&end_date=2024-01-07'],
    // the last periods a name can give: their end is 9999-12-31, the day after which cannot be written
    ['the year 9999', 'period=9999'],
    ['December 9999', 'period=9999-12'],
    ['9999-Q4', 'period=9999-Q4'],
    ['9999-H2', 'period=9999-H2'],
    ['FY9999', 'period=FY9999'],
    ['the year 9999 by month', 'period=9999&interval=month'],
    ['the last days of 9999', 'start_date=9999-12-01&end_date=9999-12-31&interval=month'],
    ['the year 0001', 'period=0001'],
  ])('404 not_found: %s', async (_what, query) => {
    const before = (await stored(t, email)).used;
    expectError(await t.json(`/averages?${query}`, { key }), 404, 'not_found', /No data available between/);
    expect((await stored(t, email)).used).toBe(before);
  });

  it('401 without a key; a malformed period without a key is still 401', async () => {
    const none = await t.json('/averages?period=FY2024');
    expectError(none, 401, 'unauthorized');
    expectError(await t.json('/averages?period=FY24'), 401, 'unauthorized');
  });

  it('403 on Free; its malformed period is 400 first (parameters before the plan); neither counts', async () => {
    const free = await account(t, 'free');
    expectError(
      await t.json('/averages?period=FY2024', { key: free.key }),
      403,
      'plan_restricted',
      /^The Free plan has no period averages; the Professional plan gives them for this period \(full history from 2018\)$/,
    );
    expectError(await t.json('/averages?period=FY24', { key: free.key }), 400, 'bad_request');
    expect((await stored(t, free.email)).used).toBe(0);
  });

  it('Starter: any range inside its 30-day window, 403 for one that starts before it; refusals do not count', async () => {
    t.setNow('2024-06-20T03:00:00Z'); // Thursday 20 June 2024: the window starts on 2024-05-21
    try {
      const starter = await account(t, 'starter');
      const get = (query: string) => t.json(`/averages?${query}&symbols=USD`, { key: starter.key });
      const june = await t.request('/averages?period=2024-06&symbols=USD', { key: starter.key });
      expect(june.status).toBe(200);
      expect(await june.text()).toBe(
        expectedBody({ period: '2024-06', start: '2024-06-01', end: '2024-06-30', complete: false, codes: ['USD'], today: '2024-06-20' }),
      );
      expect((await get('start_date=2024-05-21&end_date=2024-06-20')).status).toBe(200);
      expectError(await get('start_date=2024-05-20&end_date=2024-06-20'), 403, 'plan_restricted', /Starter plan gives the last 30 days \(from 2024-05-21\)/);
      expectError(await get('period=2024-05'), 403, 'plan_restricted', /Professional plan allows it/);
      expectError(await get('period=FY2024'), 403, 'plan_restricted');
      expect((await stored(t, starter.email)).used).toBe(2);
    } finally {
      t.setNow(NOW);
    }
  });

  it('Professional: a year of any length from 2018, not bound by its 90-day time series', async () => {
    const response = await averages('period=2023-H2&symbols=USD');
    expect(response.status).toBe(200);
  });
});
