// The workbook as it is written (src/rest/workbook.ts, spreadsheet-ml.ts, zip.ts), without the app:
// a sheet of the whole history, whose text is deflated in many blocks, read back by SheetJS (as a
// customer's program would) value by value, and the same bytes from every walk of the body.
import * as XLSX from '@e965/xlsx';
import { describe, expect, it } from 'vitest';
import { PUBLISHED_CODES } from '../../src/domain/currencies.js';
import { RateSeries } from '../../src/domain/rate-history.js';
import { seriesFile, seriesWorkbook } from '../../src/rest/rate-files.js';
import type { StreamedBody } from '../../src/rest/streamed-body.js';
import { served, syntheticTable } from '../support/rates.js';

const bytesOf = (body: StreamedBody) => Buffer.concat([...body.chunks()].map((chunk) => (typeof chunk === 'string' ? Buffer.from(chunk) : chunk)));

describe('a workbook of every day from 2018 to 2026', () => {
  const table = syntheticTable('2018-01-02', '2026-05-11', { omit: (date, code) => code === 'CAD' && date < '2023-12-21' });
  // the history holds each value's shortest text, the file shows it with the published decimals
  const stored = table.days.map((day) => ({
    date: day.date,
    rates: Object.fromEntries(Object.entries(day.rates).map(([code, text]) => [code, served(text)])),
  }));
  const body = seriesWorkbook(new RateSeries(stored, null), seriesFile('2018-01-01', '2026-05-11', '2026-05-11T06:00:00Z'));
  const bytes = bytesOf(body);

  it('reads back with every value as the RBA wrote it, and blanks where none was published', () => {
    const book = XLSX.read(bytes, { cellDates: true, cellNF: true });
    expect(book.SheetNames).toEqual(['Rates', 'Source']);
    expect(book.Props).toMatchObject({ Title: 'Daily rates, 2018-01-01 to 2026-05-11', Author: 'AUD exchange rates' });
    const rows = XLSX.utils.sheet_to_json<unknown[]>(book.Sheets.Rates!, { header: 1, raw: false, defval: '' });
    expect(rows[0]).toEqual(['Date', ...PUBLISHED_CODES]);
    expect(rows.slice(1)).toEqual(table.days.map((day) => [day.date, ...PUBLISHED_CODES.map((code) => day.rates[code] ?? '')]));
  });

  it('is the same bytes at every walk', () => {
    expect(bytesOf(body).equals(bytes)).toBe(true);
  });
});
