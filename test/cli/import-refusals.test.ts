// `cli import` refuses a file that cannot be stored whole: exit 1, one `{"error"}` object naming
// the line, and nothing stored. The CLI runs as a real child process against a running service
// (which holds the store), so the row counts are taken from the set-up and checked at the end.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MONTHLY_F11_MESSAGE } from '../../src/rba/table.js';
import { fixturePath, importFixtureVia, oneJson, runCli, serviceOnOwnStore, type TableCounts } from '../support/cli.js';

const { store, service } = serviceOnOwnStore();
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'aud-rates-files-'));
  // 2023-01-03 … 2025-10-31; f11.1-data.csv adds 2026-01-07 and 2026-05-11.
  await importFixtureVia(service, 'f11.1-data-excel-resaved.csv');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A copy of f11.1-data.csv (BOM, LF) with line `n` (1-based) edited. */
function brokenCopy(name: string, n: number, edit: (line: string) => string): string {
  const lines = readFileSync(fixturePath('f11.1-data.csv'), 'utf8').split('\n');
  const edited = edit(lines[n - 1]!);
  expect(edited).not.toBe(lines[n - 1]);
  lines[n - 1] = edited;
  const path = join(dir, name);
  writeFileSync(path, lines.join('\n'));
  return path;
}

/** The first `lines` lines of f11.1-data.csv, the last one cut by `cut`, as a file cut off in transfer. */
function truncatedCopy(name: string, lines: number, cut: (line: string) => string): string {
  const kept = readFileSync(fixturePath('f11.1-data.csv'), 'utf8').split('\n').slice(0, lines);
  kept[lines - 1] = cut(kept[lines - 1]!);
  const path = join(dir, name);
  writeFileSync(path, kept.join('\n'));
  return path;
}

async function refused(args: string[]): Promise<string> {
  const result = await runCli(args, store.env);
  const output = oneJson(result);
  expect(result.code, result.stdout + result.stderr).toBe(1);
  expect(Object.keys(output)).toEqual(['error']);
  expect(typeof output.error).toBe('string');
  return output.error as string;
}

describe.concurrent('cli import refusals', () => {
  it('refuses a file with a bad date, naming the line', { timeout: 60_000 }, async () => {
    // Line 15 is 21-Dec-2023; lines 18 and 19 (2026) are valid days the store does not have yet.
    const path = brokenCopy('bad-date.csv', 15, (line) => line.replace('21-Dec-2023', '21-Dex-2023'));
    const error = await refused(['import', path]);
    expect(error).toMatch(/\bline 15\b/);
    expect(error).toContain("'21-Dex-2023' is not a valid date");
  });

  it('refuses a file with a bad value, naming the line', { timeout: 60_000 }, async () => {
    const path = brokenCopy('bad-value.csv', 16, (line) => line.replace('09-Jan-2025,0.6201,', '09-Jan-2025,0.62O1,'));
    const error = await refused(['import', path]);
    expect(error).toMatch(/\bline 16\b/);
    expect(error).toContain("'0.62O1'");
  });

  it('refuses a file cut off inside a row of a stored day, instead of "correcting" its values', { timeout: 60_000 }, async () => {
    // Line 16 is 09-Jan-2025, already stored: cut inside its CNY value, then a line break.
    const path = truncatedCopy('cut-row.csv', 16, (line) => `${line.split(',').slice(0, 4).join(',').slice(0, -2)}\n`);
    const error = await refused(['import', path]);
    expect(error).toMatch(/\bline 16\b/);
    expect(error).toContain('data row has 4 fields but the header has 24: the file looks cut off');
  });

  it('refuses a file cut off inside its last value (no line break at the end)', { timeout: 60_000 }, async () => {
    const path = truncatedCopy('cut-value.csv', 16, (line) => line.slice(0, -2));
    const error = await refused(['import', path]);
    expect(error).toMatch(/\bline 16\b/);
    expect(error).toContain('the last line has no line break: the file looks cut off');
  });

  it('refuses a workbook cut off in transfer', { timeout: 60_000 }, async () => {
    const bytes = readFileSync(fixturePath('f11.1-hist.xls'));
    const path = join(dir, 'cut.xls');
    writeFileSync(path, bytes.subarray(0, bytes.length - 100));
    expect(await refused(['import', path])).toContain('the file looks cut off');
  });

  it('refuses a feed cut off in transfer', { timeout: 60_000 }, async () => {
    const text = readFileSync(fixturePath('rss-cb-exchange-rates.xml'), 'utf8');
    const path = join(dir, 'cut.xml');
    writeFileSync(path, text.slice(0, text.lastIndexOf('</item>') + 3));
    expect(await refused(['import', path])).toMatch(/\bline \d+\b/);
  });

  it('refuses the monthly table F11 with its message', { timeout: 60_000 }, async () => {
    const error = await refused(['import', fixturePath('f11-data-monthly.csv')]);
    expect(error).toContain(MONTHLY_F11_MESSAGE);
    expect(error).toMatch(/\bline 1\b/);
  });

  it('refuses a missing file', { timeout: 60_000 }, async () => {
    const result = await runCli(['import', join(dir, 'no-such-file.csv')], store.env);
    const output = oneJson(result);
    expect(result.code).not.toBe(0);
    expect(Object.keys(output)).toEqual(['error']);
    expect(output.error).toMatch(/no-such-file\.csv/);
  });
});

describe('after the refusals', () => {
  it('stored nothing from any refused file', { timeout: 60_000 }, async () => {
    // What the set-up import stored: 5 days of 19 codes and 2 of 20, one publication.
    const setUp: Partial<TableCounts> = { rates: 5 * 19 + 2 * 20, publications: 1, rate_corrections: 0 };
    if (store.kind === 'postgres') expect(await store.counts()).toMatchObject(setUp);
    const stopped = await service.stop();
    expect(stopped.code).toBe(0);
    expect(await store.counts()).toMatchObject(setUp);
    const dates = await store.withDb((db) => db.selectFrom('rates').select('date').distinct().orderBy('date').execute());
    expect(dates.map((d) => d.date)).not.toContain('2026-01-07');
    expect(dates.at(-1)?.date).toBe('2025-10-31');
  });
});
