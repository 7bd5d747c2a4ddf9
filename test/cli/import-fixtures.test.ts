// `cli import <file>` for each form of the RBA table (CSV with BOM and LF, the spreadsheet-resaved
// CSV with CRLF and comma padding, the .xls workbook, the RSS feed), run as a real child process
// with no service running (it opens the database itself). Each prints one summary object; a file
// imported again changes nothing. Two independent stores are filled side by side.
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRbaFile } from '../../src/rba/index.js';
import { countRows, createCliStore, fixturePath, oneJson, runCli, type CliStore, type TableCounts } from '../support/cli.js';

let stores: CliStore[] = [];
beforeAll(async () => {
  stores = await Promise.all([createCliStore(), createCliStore()]);
});
afterAll(() => Promise.all(stores.map((s) => s.close())));

/** What a store must hold: the fixtures imported into it so far, later values over earlier ones. */
function expectedAfter(...names: string[]): Map<string, string> {
  const expected = new Map<string, string>();
  for (const name of names) {
    for (const day of parseRbaFile(readFileSync(fixturePath(name)), name).days) {
      for (const [code, value] of Object.entries(day.rates)) expected.set(`${day.date} ${code}`, value);
    }
  }
  return expected;
}

/** The row counts, the publications and every stored rate, read in one opening of the store. */
function snapshot(store: CliStore) {
  return store.withDb(async (db) => {
    const rows = await db
      .selectFrom('rates')
      .select(['date', 'code', sql<string>`value::text`.as('value')])
      .execute();
    return {
      counts: await countRows(db),
      publications: await db.selectFrom('publications').select(['source', 'format', 'days', 'inserted', 'updated']).orderBy('id').execute(),
      rates: new Map(rows.map((r) => [`${r.date} ${r.code}`, r.value])),
    };
  });
}

async function importFile(store: CliStore, name: string) {
  const result = await runCli(['import', fixturePath(name)], store.env);
  const summary = oneJson(result);
  expect(result.code, result.stdout + result.stderr).toBe(0);
  expect(Object.keys(summary).sort()).toEqual(['days', 'firstDate', 'inserted', 'lastDate', 'updated']);
  return summary;
}

describe.concurrent('cli import of each fixture form', () => {
  it('RSS feed into an empty store, then the CSV download (BOM, LF), then the CSV again', { timeout: 90_000 }, async () => {
    const store = stores[0]!;
    expect((await snapshot(store)).counts).toMatchObject({ rates: 0, publications: 0 });

    expect(await importFile(store, 'rss-cb-exchange-rates.xml')).toEqual({
      days: 1,
      inserted: 1,
      updated: 0,
      firstDate: '2026-05-11',
      lastDate: '2026-05-11',
    });
    const afterFeed = await snapshot(store);
    // USD, JPY, IDR, TWI, SDR (PGK is not served)
    expect(afterFeed.counts).toMatchObject({ rates: 5, publications: 1, rate_corrections: 0 });
    expect(afterFeed.rates).toEqual(expectedAfter('rss-cb-exchange-rates.xml'));
    expect(afterFeed.publications).toEqual([{ source: fixturePath('rss-cb-exchange-rates.xml'), format: 'rss', days: 1, inserted: 1, updated: 0 }]);

    // 7 new days, and 2026-05-11 (5 codes from the feed, the same values) gains the other 15.
    expect(await importFile(store, 'f11.1-data.csv')).toEqual({
      days: 8,
      inserted: 7,
      updated: 1,
      firstDate: '2023-01-03',
      lastDate: '2026-05-11',
    });
    const afterCsv = await snapshot(store);
    const expected = expectedAfter('rss-cb-exchange-rates.xml', 'f11.1-data.csv');
    expect(afterCsv.counts).toMatchObject({ rates: expected.size, publications: 2, rate_corrections: 0 });
    expect(afterCsv.rates).toEqual(expected);

    // The same file again: nothing new, nothing changed, no publication recorded.
    expect(await importFile(store, 'f11.1-data.csv')).toEqual({
      days: 8,
      inserted: 0,
      updated: 0,
      firstDate: '2023-01-03',
      lastDate: '2026-05-11',
    });
    const again = await snapshot(store);
    expect(again.counts).toEqual(afterCsv.counts);
    expect(again.rates).toEqual(expected);
    expect(again.publications).toEqual(afterCsv.publications);
  });

  it('spreadsheet-resaved CSV (no BOM, CRLF, comma padding), then the .xls workbook of the same days', { timeout: 90_000 }, async () => {
    const store = stores[1]!;
    expect(await importFile(store, 'f11.1-data-excel-resaved.csv')).toEqual({
      days: 7,
      inserted: 7,
      updated: 0,
      firstDate: '2023-01-03',
      lastDate: '2025-10-31',
    });
    const afterCsv = await snapshot(store);
    const expected = expectedAfter('f11.1-data-excel-resaved.csv');
    expect(afterCsv.counts).toMatchObject({ rates: 5 * 19 + 2 * 20, publications: 1, rate_corrections: 0 });
    expect(afterCsv.rates).toEqual(expected);

    // The workbook holds exactly these days and values: importing it changes nothing.
    expect(await importFile(store, 'f11.1-hist.xls')).toEqual({
      days: 7,
      inserted: 0,
      updated: 0,
      firstDate: '2023-01-03',
      lastDate: '2025-10-31',
    });
    const afterXls: { counts: TableCounts; rates: Map<string, string> } = await snapshot(store);
    expect(afterXls.counts).toEqual(afterCsv.counts);
    expect(afterXls.rates).toEqual(expected);
  });
});
