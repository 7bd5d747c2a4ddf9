// syncRates: one poll of the RBA through the real app on a test database. The feed (RSS) brings the
// new day, which is published and seen by /latest and /status at once; a second poll stores
// nothing; a gap the feed does not bridge pulls the CSV; sources are files or URLs on a loopback
// server; a malformed source or a server error is an error that stores nothing, never a crash.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RbaSourceError, syncRates } from '../../src/jobs/rba-sync.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { countRows, fixturePath } from '../support/cli.js';
import { failure, fixture, startRbaServer, type RbaServer } from './rba-server.js';
import { graphql } from '../../src/graphql.js';

const TUESDAY_17H = '2026-05-12T07:00:00Z'; // Tuesday 12 May 2026, 17:00 Sydney: Tuesday's rates are due
const RSS_MAY_12 = fixturePath('rss-cb-exchange-rates-2026-05-12.xml');
const CSV = fixturePath('f11.1-data.csv');

let server: RbaServer;
let dir: string;
const apps: TestApp[] = [];

beforeAll(async () => {
  server = await startRbaServer();
  dir = mkdtempSync(join(tmpdir(), 'aud-rates-sync-'));
});
afterAll(async () => {
  await Promise.all(apps.map((t) => t.close()));
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function app(sources: { rss: string; csv: string }, now = TUESDAY_17H): Promise<TestApp> {
  const t = await startTestApp({ now, config: { RBA_RSS_URL: sources.rss, RBA_CSV_URL: sources.csv } });
  apps.push(t);
  return t;
}

describe('syncRates from files', () => {
  it('the feed brings Tuesday: stored, published, and /latest and /status show it at once; a second poll stores nothing', async () => {
    const t = await app({ rss: RSS_MAY_12, csv: CSV });
    await t.importFixture('f11.1-data.csv');
    const key = await t.createKey();
    expect((await t.json('/latest', { key })).body.date).toBe('2026-05-11'); // now in the process cache
    expect(new Date((await t.json('/status')).body.next_update_expected).toISOString()).toBe('2026-05-12T06:00:00.000Z');
    const before = await countRows(t.db);

    const summary = await syncRates(t.app.services);
    expect(summary).toEqual({
      sources: [RSS_MAY_12],
      days: 1,
      inserted: 1,
      updated: 0,
      published: '2026-05-12',
      deliveries: 0,
      newestDate: '2026-05-12',
    });
    const latest = await t.json('/latest', { key });
    expect(latest.status).toBe(200);
    expect(latest.body.date).toBe('2026-05-12');
    expect(latest.body.rates).toMatchObject({ USD: 0.7031, JPY: 109.38, IDR: 11962, TWI: 64.7 });
    expect(Object.keys(latest.body.rates)).toHaveLength(20);
    const status = await t.json('/status');
    expect(status.body.status).toBe('operational');
    expect(new Date(status.body.next_update_expected).toISOString()).toBe('2026-05-13T06:00:00.000Z');
    expect(await countRows(t.db)).toMatchObject({ rates: before.rates + 20, publications: before.publications + 1 });

    const again = await syncRates(t.app.services);
    expect(again).toEqual({ sources: [RSS_MAY_12], days: 1, inserted: 0, updated: 0, published: null, deliveries: 0, newestDate: '2026-05-12' });
    expect(await countRows(t.db)).toMatchObject({ rates: before.rates + 20, publications: before.publications + 1 });
  });

  it('a gap bigger than the feed covers pulls the CSV; only the newest day is a publication', async () => {
    const t = await app({ rss: RSS_MAY_12, csv: CSV });
    await t.importFixture('f11.1-data-excel-resaved.csv'); // newest 2025-10-31
    const summary = await syncRates(t.app.services);
    expect(summary).toEqual({
      sources: [RSS_MAY_12, CSV],
      days: 1 + 8,
      inserted: 1 + 2, // Tuesday from the feed; 2026-01-07 and 2026-05-11 from the CSV
      updated: 0,
      published: '2026-05-12',
      deliveries: 0,
      newestDate: '2026-05-12',
    });
    const key = await t.createKey();
    expect((await t.json('/2026-05-11', { key })).body.rates.USD).toBe(0.7013);
    expect((await t.json('/latest', { key })).body.date).toBe('2026-05-12');
  });

  it('an empty store reads the feed and the CSV', async () => {
    const t = await app({ rss: RSS_MAY_12, csv: CSV });
    const summary = await syncRates(t.app.services);
    expect(summary.sources).toEqual([RSS_MAY_12, CSV]);
    expect(summary).toMatchObject({ inserted: 9, published: '2026-05-12', newestDate: '2026-05-12' });
  });

  it('before the RBA publishes (the feed still holds Monday), nothing is stored and the CSV is not read', async () => {
    const t = await app({ rss: server.url('/monday/rss.xml'), csv: server.url('/monday/f11.1-data.csv') });
    server.route('/monday/rss.xml', () => fixture('rss-cb-exchange-rates.xml'));
    server.route('/monday/f11.1-data.csv', () => fixture('f11.1-data.csv'));
    await t.importFixture('f11.1-data.csv');
    const summary = await syncRates(t.app.services);
    expect(summary).toMatchObject({ inserted: 0, updated: 0, published: null, newestDate: '2026-05-11' });
    expect(server.requests('/monday/rss.xml')).toBe(1);
    expect(server.requests('/monday/f11.1-data.csv')).toBe(0);
  });

  it('with a source given, reads just that file, in any of the three formats', async () => {
    const t = await app({ rss: server.url('/unused.xml'), csv: server.url('/unused.csv') });
    const xls = await syncRates(t.app.services, { source: fixturePath('f11.1-hist.xls') });
    expect(xls).toMatchObject({ sources: [fixturePath('f11.1-hist.xls')], days: 7, inserted: 7, published: '2025-10-31', newestDate: '2025-10-31' });
    const csv = await syncRates(t.app.services, { source: CSV });
    expect(csv).toMatchObject({ inserted: 2, updated: 0, published: '2026-05-11', newestDate: '2026-05-11' });
    expect(server.requests('/unused.xml') + server.requests('/unused.csv')).toBe(0);
  });

  it('a malformed file stores nothing and is an error naming it', async () => {
    const t = await app({ rss: RSS_MAY_12, csv: CSV });
    const broken = join(dir, 'broken.csv');
    writeFileSync(broken, 'F11.1  EXCHANGE RATES\nTitle,A$1=USD\n03-Jan-2023,zero point six\n');
    const before = await countRows(t.db);
    const error = await syncRates(t.app.services, { source: broken }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RbaSourceError);
    expect((error as Error).message).toContain(broken);
    const missing = await syncRates(t.app.services, { source: join(dir, 'missing.csv') }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(RbaSourceError);
    expect((missing as Error).message).toMatch(/Cannot read .*missing\.csv: ENOENT/);
    expect(await countRows(t.db)).toEqual(before);
  });
});

describe('syncRates from URLs (a loopback server)', () => {
  it('reads the feed and, for a gap, the CSV over HTTP', async () => {
    server.route('/rss/rss-cb-exchange-rates.xml', () => fixture('rss-cb-exchange-rates-2026-05-12.xml'));
    server.route('/statistics/tables/csv/f11.1-data.csv', () => fixture('f11.1-data.csv'));
    const rss = server.url('/rss/rss-cb-exchange-rates.xml');
    const csv = server.url('/statistics/tables/csv/f11.1-data.csv');
    const t = await app({ rss, csv });
    const summary = await syncRates(t.app.services);
    expect(summary).toEqual({ sources: [rss, csv], days: 9, inserted: 9, updated: 0, published: '2026-05-12', deliveries: 0, newestDate: '2026-05-12' });
    const publications = await t.db.selectFrom('publications').select(['source', 'format', 'inserted']).orderBy('id').execute();
    expect(publications).toEqual([
      { source: rss, format: 'rss', inserted: 1 },
      { source: csv, format: 'csv', inserted: 8 },
    ]);
  });

  it('a server answering 500 is an error, not a crash, and stores nothing; the app keeps answering', async () => {
    server.route('/down/rss.xml', () => failure(500));
    const t = await app({ rss: server.url('/down/rss.xml'), csv: server.url('/down/f11.1-data.csv') });
    await t.importFixture('f11.1-data.csv');
    const before = await countRows(t.db);
    const error = await syncRates(t.app.services).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RbaSourceError);
    expect((error as Error).message).toContain('500');
    expect((error as Error).message).toContain(server.url('/down/rss.xml'));
    expect(await countRows(t.db)).toEqual(before);
    expect((await t.json('/status')).status).toBe(200);
  });

  it('malformed content over HTTP stores nothing; through the operator mutation it is an rba_source_failed error', async () => {
    server.route('/garbled.xml', () => ({
      status: 200,
      body: '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><channel>',
      type: 'application/rss+xml',
    }));
    const t = await app({ rss: server.url('/garbled.xml'), csv: CSV });
    const result = await t.operator(graphql('mutation($s: Text) { syncRates(source: $s) { sources inserted } }'), { s: server.url('/garbled.xml') });
    expect(result.data).toBeNull();
    expect(result.errors?.[0]?.extensions?.code).toBe('rba_source_failed');
    expect(result.errors?.[0]?.message).toContain(server.url('/garbled.xml'));
    const viaConfig = await t.operator(graphql('mutation { syncRates { sources inserted } }'));
    expect(viaConfig.errors?.[0]?.extensions?.code).toBe('rba_source_failed');
    expect(await countRows(t.db)).toMatchObject({ rates: 0, publications: 0 });
  });

  it('the mutation answers the summary for the operator', async () => {
    const t = await app({ rss: RSS_MAY_12, csv: CSV });
    await t.importFixture('f11.1-data.csv');
    const result = await t.operator(graphql('mutation { syncRates { sources days inserted updated published deliveries newestDate } }'));
    expect(result).toEqual({
      data: { syncRates: { sources: [RSS_MAY_12], days: 1, inserted: 1, updated: 0, published: '2026-05-12', deliveries: 0, newestDate: '2026-05-12' } },
    });
  });
});
