// /timeseries as CSV (issue 12's bulk export): `Accept: text/csv` gives a header row of codes and a
// row per rate day, each value as the RBA wrote it ('0.6400', '61.40': D48 in docs/decisions.md).
// Expected files are written here from the fixture file itself, never from the service.
import { readFileSync } from 'node:fs';
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LISTENER_LIMITS } from '../../src/http/limits.js';
import { createListener } from '../../src/http/server.js';
import { PUBLISHED_CODES } from '../../src/domain/currencies.js';
import { parseRbaFile } from '../../src/rba/index.js';
import { BILLING_DAY, MONTHLY, NOW, PERIOD, account } from '../limits/support.js';
import { FIXTURES, startTestApp, type TestApp } from '../support/app.js';
import { expectError } from '../support/expect.js';
import { syntheticTable } from '../support/rates.js';

const FIXTURE = parseRbaFile(readFileSync(new URL('f11.1-data.csv', FIXTURES)), 'f11.1-data.csv');
const CSV = { Accept: 'text/csv' };

/** The CSV the issue describes for the fixture's days in [start, end] and these columns. */
function expectedCsv(start: string, end: string, codes: readonly string[]): string {
  const rows = FIXTURE.days
    .filter((day) => day.date >= start && day.date <= end)
    .map((day) => {
      const rates = day.rates as Record<string, string | undefined>;
      return [day.date, ...codes.map((code) => (code === 'AUD' ? '1' : (rates[code] ?? '')))].join(',');
    });
  return [['date', ...codes].join(','), ...rows].map((row) => `${row}\n`).join('');
}

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp({ now: NOW });
  await t.importFixture('f11.1-data.csv');
  key = await t.createKey('business');
});
afterAll(() => t.close());

describe('GET /timeseries with Accept: text/csv', () => {
  it('every code in /latest order, a row per rate day ascending, the published digits, blanks where unpublished', async () => {
    const response = await t.request('/timeseries?start_date=2023-01-01&end_date=2023-12-31', { key, headers: CSV });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="aud-rates_2023-01-01_2023-12-31.csv"');
    expect(response.headers.get('vary')).toBe('Accept');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes[0]).not.toBe(0xef); // no BOM
    expect(bytes.includes('\r')).toBe(false);
    const text = bytes.toString('utf8');
    expect(text).toBe(expectedCsv('2023-01-01', '2023-12-31', PUBLISHED_CODES));
    // 2023-01-03: EUR 0.6400 as published (the JSON's 0.64), IDR whole, CAD not yet published.
    expect(text.split('\n')[1]).toMatch(/^2023-01-03,0\.6828,0\.6400,0\.5656,88\.48,.*,10635,16039,.*,61\.40,0\.5131$/);
  });

  it('the columns of symbols in their order, AUD as 1, and blanks', async () => {
    const response = await t.request(`/timeseries?start_date=2023-12-20&end_date=2024-06-30&symbols=${encodeURIComponent('cad,AUD,TWI,CHF')}`, {
      key,
      headers: CSV,
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toBe(expectedCsv('2023-12-20', '2024-06-30', ['CAD', 'AUD', 'TWI', 'CHF']));
    expect(text.split('\n').slice(0, 3)).toEqual(['date,CAD,AUD,TWI,CHF', '2023-12-20,,1,60.20,0.5805', '2023-12-21,0.8990,1,60.30,']);
  });

  it('JSON stays the default, and wins when preferred', async () => {
    for (const accept of [undefined, '*/*', 'application/json', 'application/json, text/csv;q=0.5', 'text/html']) {
      const response = await t.request('/timeseries?start_date=2023-01-03&end_date=2023-01-04&symbols=USD', { key, headers: accept ? { Accept: accept } : {} });
      expect(response.headers.get('content-type'), accept).toBe('application/json; charset=utf-8');
      expect((await response.json()).rates['2023-01-03'], accept).toEqual({ USD: 0.6828 });
    }
    const csv = await t.request('/timeseries?start_date=2023-01-03&end_date=2023-01-04&symbols=USD', {
      key,
      headers: { Accept: 'application/json;q=0.2, text/csv' },
    });
    expect(await csv.text()).toBe('date,USD\n2023-01-03,0.6828\n2023-01-04,0.6811\n');
  });

  it('ETag and 304 for the CSV itself, and HEAD with its headers and no body', async () => {
    const path = '/timeseries?start_date=2023-01-01&end_date=2023-12-31&symbols=USD,EUR';
    const csv = await t.request(path, { key, headers: CSV });
    const json = await t.request(path, { key });
    const etag = csv.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(etag).not.toBe(json.headers.get('etag'));
    const again = await t.request(path, { key, headers: { ...CSV, 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect((await t.request(path, { key, headers: { 'If-None-Match': etag } })).status).toBe(200); // the JSON is another representation
    const head = await t.request(path, { key, method: 'HEAD', headers: CSV });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(head.headers.get('etag')).toBe(etag);
    expect(await head.text()).toBe('');
  });

  it.each([
    ['400', '/timeseries?start_date=2023-01-31&end_date=2023-01-01', 400, 'bad_request'],
    ['400 for a code', '/timeseries?start_date=2023-01-01&end_date=2023-01-31&symbols=XYZ', 400, 'bad_request'],
    ['404', '/timeseries?start_date=2023-02-01&end_date=2023-02-28', 404, 'not_found'],
  ])('errors stay JSON: %s', async (_what, path, status, type) => {
    expectError(await t.json(path, { key, headers: CSV }), status, type);
  });

  it('errors stay JSON: 401 and 403 plan_restricted', async () => {
    expectError(await t.json('/timeseries?start_date=2023-01-01&end_date=2023-01-31', { headers: CSV }), 401, 'unauthorized');
    const starter = await t.createKey('starter');
    expectError(await t.json('/timeseries?start_date=2023-01-01&end_date=2023-01-31', { key: starter, headers: CSV }), 403, 'plan_restricted');
  });

  it('metered like JSON: a unit per export, none for a failure, 429 when none is left', async () => {
    const { key: nearlyFull } = await account(t, 'professional', { billingDay: BILLING_DAY, used: MONTHLY.professional - 1, period: PERIOD });
    expectError(await t.json('/timeseries?start_date=2023-02-01&end_date=2023-02-28', { key: nearlyFull, headers: CSV }), 404, 'not_found');
    const last = await t.request('/timeseries?start_date=2023-01-01&end_date=2023-01-31', { key: nearlyFull, headers: CSV });
    expect(last.status).toBe(200);
    expect(last.headers.get('x-ratelimit-remaining-monthly')).toBe('0');
    expectError(await t.json('/timeseries?start_date=2023-01-01&end_date=2023-01-31', { key: nearlyFull, headers: CSV }), 429, 'rate_limit_exceeded');
  });
});

describe('a year of every code over a real socket', () => {
  const YEAR = syntheticTable('2024-01-01', '2024-12-31');
  let server: Server;
  let port: number;
  beforeAll(async () => {
    await t.importTable(YEAR);
    server = createListener((req, res) => t.app.web(req, res), { limits: LISTENER_LIMITS, logger: pino({ level: 'silent' }) });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  });

  const exchange = (method: string, path: string) =>
    new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
      const req = httpRequest({ port, method, path, headers: { Authorization: `Bearer ${key}` } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });

  it('JSON arrives whole with its Content-Length (not chunked); HEAD gives the same length and no body', async () => {
    const path = '/timeseries?start_date=2024-01-01&end_date=2024-12-31&symbols=USD,EUR';
    const get = await exchange('GET', path);
    expect(get.status).toBe(200);
    expect(get.headers['transfer-encoding']).toBeUndefined();
    expect(get.headers['content-length']).toBe(String(get.body.length));
    expect(JSON.parse(get.body.toString('utf8'))).toMatchObject({ success: true, timeseries: true });
    const head = await exchange('HEAD', path);
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(get.body.length));
    expect(head.body.length).toBe(0);
    const refused = await exchange('GET', '/timeseries?start_date=2024-12-31&end_date=2024-01-01');
    expect(refused.status).toBe(400);
    expect(refused.headers['content-length']).toBe(String(refused.body.length));
  });

  it('arrives in chunks (chunked, no Content-Length) and whole', async () => {
    const { headers, chunks } = await new Promise<{ headers: Record<string, unknown>; chunks: Buffer[] }>((resolve, reject) => {
      const req = httpRequest(
        { port, path: '/timeseries?start_date=2024-01-01&end_date=2024-12-31', headers: { Authorization: `Bearer ${key}`, Accept: 'text/csv' } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ headers: res.headers, chunks }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(headers['transfer-encoding']).toBe('chunked');
    expect(headers['content-length']).toBeUndefined();
    expect(chunks.length).toBeGreaterThan(1);
    const rates = (code: string, date: string) => YEAR.days.find((d) => d.date === date)!.rates[code as keyof (typeof YEAR.days)[number]['rates']];
    const expected = ['date,' + PUBLISHED_CODES.join(','), ...YEAR.days.map((d) => [d.date, ...PUBLISHED_CODES.map((c) => rates(c, d.date)!)].join(','))];
    expect(Buffer.concat(chunks).toString('utf8')).toBe(expected.map((row) => `${row}\n`).join(''));
  });
});
