// The rates as files (D44, D45, D48 in docs/decisions.md): NDJSON on /timeseries, Excel workbooks on
// /timeseries and /averages, and GET /export, the whole history as CSV, NDJSON or a workbook. The
// workbooks are opened with a spreadsheet reader (SheetJS, as a customer's program would) and their
// cells checked: real dates, numbers formatted with the decimals the RBA published, a Source sheet.
// Expected values come from the fixture files themselves.
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import * as XLSX from '@e965/xlsx';
import { DateTime } from 'luxon';
import { beforeAll, describe, expect, it } from 'vitest';
import { PUBLISHED_CODES } from '../../src/domain/currencies.js';
import { parseRbaFile } from '../../src/rba/index.js';
import { FIXTURES, appForFile } from '../support/app.js';
import { expectError } from '../support/expect.js';
import { listenerFor } from '../mcp/support.js';

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const NDJSON = { Accept: 'application/x-ndjson' };
const WORKBOOK = { Accept: XLSX_TYPE };
const NOW = '2026-05-12T03:00:00Z'; // Tuesday 13:00 Sydney

const CURRENT = parseRbaFile(readFileSync(new URL('f11.1-data.csv', FIXTURES)), 'f11.1-data.csv');
const HISTORY = parseRbaFile(readFileSync(new URL('f11.1-hist-2018-2022.xls', FIXTURES)), 'f11.1-hist-2018-2022.xls');
/** every fixture day, ascending, with the values as the RBA wrote them */
const ALL_DAYS = [...HISTORY.days, ...CURRENT.days];

const t = appForFile({ now: NOW }, 'f11.1-hist-2018-2022.xls', 'f11.1-data.csv');
let business: string;
let professional: string;
beforeAll(async () => {
  business = await t.createKey('business');
  professional = await t.createKey('professional');
});

const remaining = (response: Response) => Number(response.headers.get('x-ratelimit-remaining-monthly'));

/** A workbook answer, read back as a spreadsheet program reads it. */
async function workbookOf(response: Response): Promise<XLSX.WorkBook> {
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe(XLSX_TYPE);
  return XLSX.read(Buffer.from(await response.arrayBuffer()), { cellDates: true, cellNF: true });
}

const cell = (sheet: XLSX.WorkSheet, address: string) => sheet[address] as XLSX.CellObject | undefined;

/** The Source sheet as label → value, and its table of series as code → [series id, title, units, decimals]. */
function sourceOf(book: XLSX.WorkBook) {
  const rows = XLSX.utils.sheet_to_json<unknown[]>(book.Sheets.Source!, { header: 1, raw: true });
  const header = rows.findIndex((row) => row[0] === 'Code');
  return {
    lines: new Map(rows.slice(0, header).map((row) => [row[0] as string, row[1]])),
    series: new Map(rows.slice(header + 1).map((row) => [row[0] as string, row.slice(1)])),
  };
}

describe('NDJSON on /timeseries', () => {
  it('one object a line, {date, rates}, in date order, with the JSON answer’s numbers', async () => {
    const path = '/timeseries?start_date=2023-01-01&end_date=2023-12-31&symbols=USD,EUR,CAD';
    const response = await t.request(path, { key: business, headers: NDJSON });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-ndjson');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="aud-rates_2023-01-01_2023-12-31.ndjson"');
    expect(response.headers.get('vary')).toBe('Accept');
    const text = await response.text();
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.trimEnd().split('\n');
    const json = (await t.json(path, { key: business })).body;
    expect(lines.map((line) => JSON.parse(line))).toEqual(Object.entries(json.rates).map(([date, rates]) => ({ date, rates })));
    expect(lines[0]).toBe('{"date":"2023-01-03","rates":{"USD":0.6828,"EUR":0.64}}');
    expect(lines.at(-1)).toBe('{"date":"2023-12-21","rates":{"USD":0.6712,"EUR":0.611,"CAD":0.899}}');
  });

  it('has its own ETag (304 to it), and counts one request as the JSON does', async () => {
    const path = '/timeseries?start_date=2023-01-01&end_date=2023-01-31';
    const first = await t.request(path, { key: business, headers: NDJSON });
    const etag = first.headers.get('etag')!;
    expect(etag).not.toBe((await t.request(path, { key: business })).headers.get('etag'));
    const again = await t.request(path, { key: business, headers: { ...NDJSON, 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    expect(remaining(again)).toBe(remaining(first) - 2);
  });
});

describe('Excel workbooks on /timeseries', () => {
  it('a Rates sheet of real dates and numbers shown with the published decimals, blanks where unpublished', async () => {
    const response = await t.request('/timeseries?start_date=2023-01-01&end_date=2023-12-31', { key: business, headers: WORKBOOK });
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="aud-rates_2023-01-01_2023-12-31.xlsx"');
    const book = await workbookOf(response);
    expect(book.SheetNames).toEqual(['Rates', 'Source']);
    const rates = book.Sheets.Rates!;
    const table = XLSX.utils.sheet_to_json<unknown[]>(rates, { header: 1, raw: false });
    expect(table[0]).toEqual(['Date', ...PUBLISHED_CODES]);
    const days = CURRENT.days.filter((d) => d.date.startsWith('2023'));
    expect(table).toHaveLength(days.length + 1);
    // every value as the file shows it is the RBA's own text; a code not published that day is an empty cell
    days.forEach((day, i) => {
      const row = table[i + 1]!;
      expect(row[0]).toBe(day.date);
      PUBLISHED_CODES.forEach((code, c) => expect(row[c + 1] ?? '', `${day.date} ${code}`).toBe(day.rates[code] ?? ''));
    });
    // the cells themselves: a date, and numbers with their formats
    expect(cell(rates, 'A2')).toMatchObject({ t: 'd', z: 'yyyy-mm-dd', w: '2023-01-03' });
    expect((cell(rates, 'A2')!.v as Date).toISOString()).toBe('2023-01-03T00:00:00.000Z');
    expect(cell(rates, 'B2')).toMatchObject({ t: 'n', v: 0.6828, z: '0.0000', w: '0.6828' });
    expect(cell(rates, 'C2')).toMatchObject({ t: 'n', v: 0.64, z: '0.0000', w: '0.6400' }); // EUR
    expect(cell(rates, 'E2')).toMatchObject({ t: 'n', v: 88.48, z: '0.00', w: '88.48' }); // JPY
    expect(cell(rates, 'M2')).toMatchObject({ t: 'n', v: 10635, z: '0', w: '10635' }); // IDR
    expect(cell(rates, 'T2')).toMatchObject({ t: 'n', v: 61.4, z: '0.00', w: '61.40' }); // TWI
    expect(cell(rates, 'Q2')).toBeUndefined(); // CAD, not yet published
  });

  it('a Source sheet naming table F11.1, each series with its id and units, and when the data was read', async () => {
    const book = await workbookOf(
      await t.request('/timeseries?start_date=2023-01-01&end_date=2023-01-31&symbols=USD,TWI,IDR', { key: business, headers: WORKBOOK }),
    );
    const { lines, series } = sourceOf(book);
    expect(String(lines.get('Source'))).toMatch(/Reserve Bank of Australia, statistical table F11\.1/);
    expect(lines.get('Contents')).toBe('Daily rates, 2023-01-01 to 2023-01-31');
    expect(String(lines.get('Quotation'))).toMatch(/units of foreign currency that 1 AUD buys/);
    expect([...series]).toEqual([
      ['USD', ['FXRUSD', 'A$1=USD', 'USD', 4]],
      ['TWI', ['FXRTWI', 'Trade-weighted Index May 1970 = 100', 'Index', 2]],
      ['IDR', ['FXRIR', 'A$1=IDR', 'IDR', 0]],
    ]);
    // when the rates were stored, as /status says, in Sydney's wall-clock time (a spreadsheet's date has no zone)
    const read = lines.get('Data read (Sydney time)') as Date;
    const stored = DateTime.fromISO((await t.json('/status')).body.last_update as string).setZone('Australia/Sydney');
    const wallClock = Date.UTC(stored.year, stored.month - 1, stored.day, stored.hour, stored.minute, stored.second);
    expect(Math.abs(read.getTime() - wallClock)).toBeLessThan(1000);
  });

  it('is counted as one request; its errors stay JSON', async () => {
    const before = remaining(await t.request('/latest', { key: business }));
    await workbookOf(await t.request('/timeseries?start_date=2023-01-01&end_date=2023-01-31', { key: business, headers: WORKBOOK }));
    expect(remaining(await t.request('/latest', { key: business }))).toBe(before - 2);
    expectError(await t.json('/timeseries?start_date=2023-02-01&end_date=2023-01-01', { key: business, headers: WORKBOOK }), 400, 'bad_request');
    expectError(await t.json('/timeseries?start_date=2023-02-01&end_date=2023-02-28', { key: business, headers: WORKBOOK }), 404, 'not_found');
  });
});

describe('Excel workbooks on /averages', () => {
  it('an Averages sheet: the mean with 6 places, dates, rates with the published decimals; with months a Months sheet', async () => {
    const path = '/averages?start_date=2023-01-01&end_date=2023-01-31&symbols=USD,EUR,JPY&interval=month';
    const book = await workbookOf(await t.request(path, { key: business, headers: WORKBOOK }));
    expect(book.SheetNames).toEqual(['Averages', 'Months', 'Source']);
    const averages = XLSX.utils.sheet_to_json<unknown[]>(book.Sheets.Averages!, { header: 1, raw: false });
    expect(averages).toEqual([
      ['Code', 'Mean', 'Days', 'First date', 'Last date', 'End rate', 'Lowest', 'Highest'],
      ['USD', '0.681950', '2', '2023-01-03', '2023-01-04', '0.6811', '0.6811', '0.6828'],
      ['EUR', '0.641850', '2', '2023-01-03', '2023-01-04', '0.6437', '0.6400', '0.6437'],
      ['JPY', '88.790000', '2', '2023-01-03', '2023-01-04', '89.10', '88.48', '89.10'],
    ]);
    const sheet = book.Sheets.Averages!;
    expect(cell(sheet, 'B2')).toMatchObject({ t: 'n', v: 0.68195, z: '0.000000' });
    expect(cell(sheet, 'D2')).toMatchObject({ t: 'd', z: 'yyyy-mm-dd' });
    const months = XLSX.utils.sheet_to_json<unknown[]>(book.Sheets.Months!, { header: 1, raw: false });
    expect(months[0]).toEqual(['Month', 'Code', 'Mean', 'Days', 'First date', 'Last date', 'End rate', 'Lowest', 'Highest']);
    expect(months[1]).toEqual(['2023-01', 'USD', '0.681950', '2', '2023-01-03', '2023-01-04', '0.6811', '0.6811', '0.6828']);
    expect(cell(book.Sheets.Months!, 'A2')).toMatchObject({ t: 'd', z: 'yyyy-mm' });
    const { lines, series } = sourceOf(book);
    expect(lines.get('Contents')).toBe('Period averages, 2023-01-01 to 2023-01-31');
    expect(String(lines.get('Mean'))).toMatch(/rounded half away from zero to 6 decimal places/);
    expect([...series.keys()]).toEqual(['USD', 'EUR', 'JPY']);
  });

  it('the CSV writes the same figures', async () => {
    const csv = await t.request('/averages?period=2023-01&symbols=JPY,IDR', { key: business, headers: { Accept: 'text/csv' } });
    expect(await csv.text()).toBe(
      'code,mean,days,first_date,last_date,end_rate,min,max\nJPY,88.790000,2,2023-01-03,2023-01-04,89.10,88.48,89.10\nIDR,10632.500000,2,2023-01-03,2023-01-04,10630,10630,10635\n',
    );
  });
});

describe('GET /export', () => {
  it('the whole history by default, as the /timeseries CSV: every day from 2018, each value as the RBA wrote it', async () => {
    const response = await t.request('/export', { key: business });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="aud-rates_2018-01-01_2026-05-12.csv"');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const expected = [
      `date,${PUBLISHED_CODES.join(',')}\n`,
      ...ALL_DAYS.map((day) => `${day.date},${PUBLISHED_CODES.map((code) => day.rates[code] ?? '').join(',')}\n`),
    ].join('');
    expect(await response.text()).toBe(expected);
    expect(ALL_DAYS[0]!.date).toBe('2018-01-02');
    // */* and text/* take the default
    expect((await t.request('/export', { key: business, headers: { Accept: '*/*' } })).headers.get('content-type')).toBe('text/csv; charset=utf-8');
  });

  it('a range, either end left open, and symbols', async () => {
    const csv = async (query: string) => (await t.request(`/export?${query}`, { key: business })).text();
    expect(await csv('start_date=2023-12-20&symbols=CAD,chf')).toBe(
      'date,CAD,CHF\n2023-12-20,,0.5805\n2023-12-21,0.8990,\n2025-01-09,0.8924,\n2025-01-10,0.8917,0.5671\n2026-01-07,0.9207,0.5341\n2026-05-11,0.9561,0.5476\n',
    );
    expect((await csv('end_date=2018-12-31&symbols=USD')).split('\n').slice(0, 2)).toEqual(['date,USD', `2018-01-02,${HISTORY.days[0]!.rates.USD}`]);
    const named = await t.request('/export?end_date=2020-12-31', { key: business });
    expect(named.headers.get('content-disposition')).toBe('attachment; filename="aud-rates_2018-01-01_2020-12-31.csv"');
  });

  it('NDJSON and a workbook by Accept', async () => {
    const ndjson = await t.request('/export?symbols=USD', { key: business, headers: NDJSON });
    expect(ndjson.headers.get('content-type')).toBe('application/x-ndjson');
    const lines = (await ndjson.text()).trimEnd().split('\n');
    expect(lines).toHaveLength(ALL_DAYS.length);
    expect(lines.map((line) => JSON.parse(line).date)).toEqual(ALL_DAYS.map((d) => d.date));
    const book = await workbookOf(await t.request('/export', { key: business, headers: WORKBOOK }));
    expect(book.SheetNames).toEqual(['Rates', 'Source']);
    const rows = XLSX.utils.sheet_to_json<unknown[]>(book.Sheets.Rates!, { header: 1, raw: false });
    expect(rows).toHaveLength(ALL_DAYS.length + 1);
    expect(rows.at(-1)![1]).toBe('0.7013');
    expect(sourceOf(book).lines.get('Contents')).toBe('Daily rates, 2018-01-01 to 2026-05-12');
  });

  it('406 not_acceptable for an Accept that allows none of the three, in the envelope, counting nothing', async () => {
    const before = remaining(await t.request('/latest', { key: business }));
    for (const accept of ['application/json', 'text/html', 'application/xml, application/json;q=0.9']) {
      expectError(await t.json('/export', { key: business, headers: { Accept: accept } }), 406, 'not_acceptable', /text\/csv, application\/x-ndjson/);
    }
    expect(remaining(await t.request('/latest', { key: business }))).toBe(before - 1);
  });

  it('Business and Enterprise only: other plans are refused, naming the plan that exports', async () => {
    expectError(await t.json('/export', { key: professional }), 403, 'plan_restricted', /Professional plan has no bulk export; the Business plan/);
    expectError(await t.json('/export', { key: await t.createKey('free') }), 403, 'plan_restricted');
    expect((await t.request('/export?symbols=USD', { key: await t.createKey('enterprise') })).status).toBe(200);
    expectError(await t.json('/export'), 401, 'unauthorized');
  });

  it('refuses a bad range or parameter (400), and finds nothing in an empty range (404)', async () => {
    expectError(await t.json('/export?start_date=2024-02-01&end_date=2024-01-01', { key: business }), 400, 'bad_request', /end_date must not be before/);
    expectError(await t.json('/export?start_date=2024-02-30', { key: business }), 400, 'bad_request', /Invalid date/);
    expectError(await t.json('/export?period=2024', { key: business }), 400, 'bad_request', /Unknown parameter 'period'/);
    expectError(await t.json('/export?symbols=XXX', { key: business }), 400, 'bad_request', /Unsupported currency/);
    expectError(await t.json('/export?start_date=2024-02-01&end_date=2024-02-29', { key: business }), 404, 'not_found');
  });

  it('one request a file, whatever its length; ETag and 304; HEAD without a body', async () => {
    const first = await t.request('/export', { key: business });
    await first.text();
    const etag = first.headers.get('etag')!;
    const again = await t.request('/export', { key: business, headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    expect(remaining(again)).toBe(remaining(first) - 1);
    const head = await t.request('/export', { key: business, method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe(etag);
    expect(await head.text()).toBe('');
  });

  it('a key limited to other endpoints may not export; one allowed export may', async () => {
    const restrict = async (endpoints: string[]) => {
      const key = await t.createKey('business');
      const prefix = key.split('_')[0]!;
      const result = await t.operatorText('mutation($p: Text!, $e: [Text!]) { restrictApiKey(prefix: $p, restrictions: { allowedEndpoints: $e }) { id } }', {
        p: prefix,
        e: endpoints,
      });
      expect(result.errors).toBeUndefined();
      return key;
    };
    expectError(await t.json('/export', { key: await restrict(['timeseries']) }), 403, 'key_restricted', /may not call export/);
    expect((await t.request('/export', { key: await restrict(['export']) })).status).toBe(200);
  });
});

describe('GET /export over a real socket', () => {
  const listener = listenerFor(t);

  it.each([
    ['CSV', 'text/csv'],
    ['NDJSON', 'application/x-ndjson'],
    ['a workbook', XLSX_TYPE],
  ])('%s arrives in chunks, as it is written (chunked, no Content-Length)', async (_what, accept) => {
    const { headers, chunks } = await new Promise<{ headers: Record<string, unknown>; chunks: Buffer[] }>((resolve, reject) => {
      const req = httpRequest(new URL('/export', listener.origin), { headers: { Authorization: `Bearer ${business}`, Accept: accept } }, (res) => {
        const received: Buffer[] = [];
        res.on('data', (chunk: Buffer) => received.push(chunk));
        res.on('end', () => resolve({ headers: res.headers, chunks: received }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    expect(headers['content-type']).toMatch(accept);
    expect(headers['transfer-encoding']).toBe('chunked');
    expect(headers['content-length']).toBeUndefined();
    expect(Buffer.concat(chunks).length).toBeGreaterThan(1000);
  });
});
