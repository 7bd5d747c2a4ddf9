import { describe, expect, it } from 'vitest';
import { PUBLISHED_CODES } from '../../src/domain/currencies.js';
import { RbaFormatError, parseRbaCsv } from '../../src/rba/index.js';
import { rbaCsv, syntheticTable } from '../support/rates.js';
import { editLine, fixtureText, refusal } from './fixtures.js';

// f11.1-data.csv: BOM, LF. Line 1 title, 2-6 Title..Units, 7-8 empty, 9 Source,
// 10 Publication date, 11 Series ID, data on lines 12-19, then 40 empty lines.
// Columns: date, USD, TWI(Index), CNY, JPY, EUR, KRW, GBP, SGD, INR, THB, NZD,
// TWD, MYR, IDR, VND, AED, PGK, HKD, CAD, ZAR, CHF, PHP, SDR.
const raw = fixtureText('f11.1-data.csv');
const resaved = fixtureText('f11.1-data-excel-resaved.csv');

// Replaces cell `col` (0-based) of line n of the raw fixture.
const setCell = (text: string, n: number, col: number, value: string): string =>
  editLine(text, n, (l) => {
    const cells = l.split(',');
    cells[col] = value;
    return cells.join(',');
  });

describe('parseRbaCsv on the RBA download layout (f11.1-data.csv)', () => {
  const table = parseRbaCsv(raw);

  it('keeps the BOM, blank header lines and trailing blank lines out of the way', () => {
    expect(raw.charCodeAt(0)).toBe(0xfeff);
    expect(raw.endsWith('\n\n\n')).toBe(true);
    expect(table.format).toBe('csv');
    expect(table.days.map((d) => d.date)).toEqual([
      '2023-01-03',
      '2023-01-04',
      '2023-12-20',
      '2023-12-21',
      '2025-01-09',
      '2025-01-10',
      '2026-01-07',
      '2026-05-11',
    ]);
  });

  it('takes the most common publication date (AED and ZAR carry an older one)', () => {
    expect(table.publicationDate).toBe('2026-05-11');
  });

  it('keeps the published text of every value exactly', () => {
    expect(table.days[0]).toEqual({
      date: '2023-01-03',
      rates: {
        USD: '0.6828',
        TWI: '61.40',
        CNY: '4.6994',
        JPY: '88.48',
        EUR: '0.6400',
        KRW: '867.16',
        GBP: '0.5656',
        SGD: '0.9134',
        INR: '56.51',
        THB: '23.47',
        NZD: '1.0760',
        TWD: '20.97',
        MYR: '2.9975',
        IDR: '10635',
        VND: '16039',
        HKD: '5.3316',
        CHF: '0.6310',
        PHP: '38.07',
        SDR: '0.5131',
      },
    });
    const last = table.days.at(-1)!;
    expect(last.rates.KRW).toBe('1010.45');
    expect(last.rates.TWI).toBe('64.60');
    expect(last.rates.IDR).toBe('11935');
    expect(last.rates.VND).toBe('18410');
  });

  it('maps the Index column to TWI and ignores AED, PGK and ZAR', () => {
    const jan2026 = table.days.find((d) => d.date === '2026-01-07')!;
    expect(jan2026.rates.TWI).toBe('62.10');
    // That day has all 20 codes, and nothing else (PGK has a value too).
    expect(Object.keys(jan2026.rates).sort()).toEqual([...PUBLISHED_CODES].sort());
    for (const day of table.days) {
      for (const key of Object.keys(day.rates)) expect(PUBLISHED_CODES).toContain(key);
    }
  });

  it('leaves out CAD before 21-Dec-2023 and CHF from 21-Dec-2023 to 09-Jan-2025', () => {
    const has = (code: 'CAD' | 'CHF') => table.days.map((d) => [d.date, code in d.rates]);
    expect(has('CAD')).toEqual([
      ['2023-01-03', false],
      ['2023-01-04', false],
      ['2023-12-20', false],
      ['2023-12-21', true],
      ['2025-01-09', true],
      ['2025-01-10', true],
      ['2026-01-07', true],
      ['2026-05-11', true],
    ]);
    expect(has('CHF')).toEqual([
      ['2023-01-03', true],
      ['2023-01-04', true],
      ['2023-12-20', true],
      ['2023-12-21', false],
      ['2025-01-09', false],
      ['2025-01-10', true],
      ['2026-01-07', true],
      ['2026-05-11', true],
    ]);
    expect(table.days[3]!.rates.CAD).toBe('0.8990');
    expect(table.days[5]!.rates.CHF).toBe('0.5671');
  });
});

describe('parseRbaCsv on the spreadsheet re-save layout (f11.1-data-excel-resaved.csv)', () => {
  const table = parseRbaCsv(resaved);

  it('has the quirks it is meant to have', () => {
    expect(resaved.charCodeAt(0)).not.toBe(0xfeff);
    expect(resaved.split('\r\n')[0]).toBe(`F11.1  EXCHANGE RATES ${','.repeat(67)}`);
    expect(resaved.split('\r\n')[6]).toBe(','.repeat(67));
    expect(resaved.split('\r\n').every((l) => l === '' || l.split(',').length === 68)).toBe(true);
  });

  it('reads CRLF, comma padding and comma-only lines', () => {
    expect(table.publicationDate).toBe('2025-10-31');
    expect(table.days).toHaveLength(7);
    expect(table.days.at(-1)).toEqual({
      date: '2025-10-31',
      rates: {
        USD: '0.6551',
        TWI: '61.20',
        CNY: '4.6578',
        JPY: '100.84',
        EUR: '0.5662',
        KRW: '934.57',
        GBP: '0.4979',
        SGD: '0.8516',
        INR: '58.11',
        THB: '21.19',
        NZD: '1.1427',
        TWD: '20.12',
        MYR: '2.7465',
        IDR: '10894',
        VND: '17234',
        HKD: '5.0889',
        CAD: '0.9163',
        CHF: '0.5252',
        PHP: '38.58',
        SDR: '0.4817',
      },
    });
  });

  it('gives the same days as the download on the dates both have', () => {
    const download = new Map(parseRbaCsv(raw).days.map((d) => [d.date, d.rates]));
    const common = table.days.filter((d) => download.has(d.date));
    expect(common).toHaveLength(6);
    for (const d of common) expect(d.rates).toEqual(download.get(d.date));
  });
});

describe('parseRbaCsv layout rules', () => {
  it('maps columns by their Units cell, not their position or title', () => {
    // Swap the USD and EUR columns everywhere, and garble the Title row.
    const swapped = raw
      .split('\n')
      .map((l) => {
        const c = l.split(',');
        if (c.length < 6) return l;
        [c[1], c[5]] = [c[5]!, c[1]!];
        if (c[0] === 'Title') c[1] = 'A$1=USD';
        return c.join(',');
      })
      .join('\n');
    const table = parseRbaCsv(swapped);
    expect(table.days[0]!.rates.USD).toBe('0.6828');
    expect(table.days[0]!.rates.EUR).toBe('0.6400');
  });

  it('accepts lower-case or padded Units cells', () => {
    const text = editLine(raw, 6, (l) => l.replace(',USD,Index,', ', usd ,index,'));
    expect(parseRbaCsv(text).days[0]!.rates).toMatchObject({ USD: '0.6828', TWI: '61.40' });
  });

  it('skips a row where none of the 20 codes has a value, even if an ignored column has one', () => {
    const cells = ['05-Jan-2023', ...Array<string>(23).fill('')];
    cells[17] = '2.5012'; // PGK
    const text = editLine(raw, 13, (l) => `${l}\n${cells.join(',')}`);
    expect(parseRbaCsv(text).days.map((d) => d.date)).not.toContain('2023-01-05');
    cells[1] = '0.6815';
    const text2 = editLine(raw, 13, (l) => `${l}\n${cells.join(',')}`);
    expect(parseRbaCsv(text2).days[2]).toEqual({ date: '2023-01-05', rates: { USD: '0.6815' } });
  });

  it('sorts the days by date', () => {
    const lines = raw.split('\n');
    [lines[11], lines[18]] = [lines[18]!, lines[11]!];
    const dates = parseRbaCsv(lines.join('\n')).days.map((d) => d.date);
    expect(dates[0]).toBe('2023-01-03');
    expect(dates.at(-1)).toBe('2026-05-11');
  });

  it('ignores blank and comma-only lines among the data rows', () => {
    const text = editLine(raw, 14, (l) => `,,,,\n\n${l}`);
    expect(parseRbaCsv(text).days).toHaveLength(8);
  });

  it('reads CR-only line endings and a file without a title line', () => {
    expect(parseRbaCsv(raw.replace(/\n/g, '\r')).days).toHaveLength(8);
    const untitled = raw.slice(1).split('\n').slice(1).join('\n');
    expect(parseRbaCsv(untitled).days).toHaveLength(8);
  });

  it('reads quoted cells (csv-parse path) and still names the right lines', () => {
    const quoted = editLine(raw, 3, (l) => l.replace('AUD/USD Exchange Rate', '"AUD/USD Exchange Rate,\nsee notes"'));
    const table = parseRbaCsv(quoted);
    expect(table.days).toHaveLength(8);
    expect(table.days[0]!.rates.USD).toBe('0.6828');
    // The quoted cell spans lines 3-4, so the data now starts on line 13.
    const bad = setCell(quoted, 14, 4, 'abc');
    refusal(() => parseRbaCsv(bad), 14, "line 14: 'abc' in column 5 (JPY) is not a plain non-negative decimal");
    refusal(() => parseRbaCsv(editLine(raw, 12, (l) => `${l},"unclosed`)), 12, /^line 12: not readable as CSV/);
  });

  it('reads back a synthetic table written in the layout (what the bench imports)', () => {
    const written = syntheticTable('2019-12-20', '2020-01-10', { omit: (date, code) => code === 'CAD' && date < '2020-01-02' });
    expect(parseRbaCsv(rbaCsv(written)).days).toEqual(written.days);
  });
});

describe('parseRbaCsv refusals', () => {
  it('refuses the monthly table F11 by its title', () => {
    const err = refusal(() => parseRbaCsv(fixtureText('f11-data-monthly.csv')), 1, 'line 1: this is the monthly table F11');
    expect(err.message).toContain('not the daily table F11.1; download f11.1-data.csv');
  });

  it('refuses a Monthly frequency row even under an F11.1 title', () => {
    const text = fixtureText('f11-data-monthly.csv').replace('F11 EXCHANGE RATES', 'F11.1  EXCHANGE RATES');
    refusal(() => parseRbaCsv(text), 4, 'line 4: this is the monthly table F11 (end-of-month rates)');
  });

  it('refuses another RBA table', () => {
    refusal(() => parseRbaCsv(editLine(raw, 1, () => '\uFEFFF1.1  INTEREST RATES')), 1, "line 1: this is RBA table F1.1 ('F1.1  INTEREST RATES')");
  });

  it('refuses a file without a Units row', () => {
    const lines = raw.split('\n');
    lines.splice(5, 1); // Series ID is now on line 10
    refusal(() => parseRbaCsv(lines.join('\n')), 10, "line 10: the header block has no 'Units' row");
    refusal(() => parseRbaCsv('03-Jan-2023,0.6828\n04-Jan-2023,0.6811\n'), 1, "line 1: the header block has no 'Units' row");
    refusal(() => parseRbaCsv('hello,world\nfoo,bar\n'), 1, "line 1: no 'Units' row and no data rows found");
  });

  it('refuses a file with no column we serve', () => {
    const text = editLine(raw, 6, (l) =>
      l
        .split(',')
        .map((c, i) => (i === 0 ? c : `X${i}`))
        .join(','),
    );
    refusal(() => parseRbaCsv(text), 6, 'line 6: no column has a unit we serve');
  });

  it('refuses two columns with the same unit', () => {
    refusal(() => parseRbaCsv(editLine(raw, 6, (l) => l.replace(',EUR,', ',USD,'))), 6, 'line 6: columns 2 and 6 both have the unit of USD');
  });

  it('refuses a file without data rows', () => {
    const headerOnly = raw.split('\n').slice(0, 11).join('\n') + '\n\n\n';
    refusal(() => parseRbaCsv(headerOnly), 11, 'line 11: the header block is not followed by any data rows');
    refusal(() => parseRbaCsv(''), 1, 'line 1: the file is empty');
    refusal(() => parseRbaCsv('\uFEFF\n,,,\n'), 1, 'line 1: the file is empty');
  });

  it('refuses a bad date, naming its line', () => {
    refusal(() => parseRbaCsv(setCell(raw, 14, 0, '30-Feb-2024')), 14, "line 14: '30-Feb-2024' is not a valid date");
    refusal(() => parseRbaCsv(setCell(raw, 14, 0, '31-Feb-2024')), 14, "line 14: '31-Feb-2024' is not a valid date");
    refusal(() => parseRbaCsv(setCell(raw, 15, 0, 'foo')), 15, "line 15: 'foo' is not a valid date");
    refusal(() => parseRbaCsv(setCell(raw, 15, 0, '2023-12-21')), 15, "line 15: '2023-12-21' is not a valid date");
    refusal(() => parseRbaCsv(setCell(raw, 16, 0, '')), 16, 'line 16: data row has no date in its first cell');
  });

  it.each(['abc', '-1', '1e3', '0x10', '.5', '5.', '1 000', '+1', 'n.a.', 'NaN'])('refuses the value %j', (bad) => {
    refusal(() => parseRbaCsv(setCell(raw, 13, 4, bad)), 13, `line 13: '${bad.trim()}' in column 5 (JPY) is not a plain non-negative decimal`);
  });

  it('refuses a malformed value in an ignored column too (the file is refused whole)', () => {
    refusal(() => parseRbaCsv(setCell(raw, 12, 16, 'x')), 12, "line 12: 'x' in column 17 (AED)");
  });

  it('refuses duplicate dates', () => {
    refusal(() => parseRbaCsv(setCell(raw, 13, 0, '03-Jan-2023')), 13, 'line 13: date 03-Jan-2023 appears twice (first on line 12)');
  });

  it('refuses a row with more fields than the header, even empty ones', () => {
    refusal(
      () => parseRbaCsv(editLine(raw, 15, (l) => `${l},,,`)),
      15,
      'line 15: data row has 27 fields but the header has 24: the row does not match the header',
    );
    refusal(() => parseRbaCsv(editLine(raw, 15, (l) => `${l},,9.99`)), 15, 'line 15: data row has 26 fields but the header has 24');
  });

  it('refuses a row with fewer fields than the header: a file cut off in its last row', () => {
    const lines = raw.trimEnd().split('\n');
    const last = lines.length;
    // Cut inside the CNY value of the last row (4.7479 → 4.74), then a line break.
    const cut = `${lines.slice(0, -1).join('\n')}\n${lines.at(-1)!.split(',').slice(0, 4).join(',').slice(0, -2)}\n`;
    refusal(() => parseRbaCsv(cut), last, `line ${last}: data row has 4 fields but the header has 24: the file looks cut off`);
  });

  it('refuses a file whose last line has no line break: cut off inside its last value', () => {
    const lines = raw.trimEnd().split('\n');
    refusal(() => parseRbaCsv(raw.trimEnd().slice(0, -2)), lines.length, `line ${lines.length}: the last line has no line break: the file looks cut off`);
    expect(parseRbaCsv(`${raw.trimEnd()}\r\n`).days).toHaveLength(8);
  });

  it('refuses every cut of a real file short of its end', () => {
    const whole = raw.trimEnd();
    const lastRow = whole.lastIndexOf('\n') + 1;
    for (let cut = lastRow + 1; cut < whole.length; cut++) {
      expect(() => parseRbaCsv(whole.slice(0, cut)), `cut at ${cut}`).toThrow(RbaFormatError);
      // With a line break added, only a cut inside the last value could pass for a whole row.
      if (cut <= whole.lastIndexOf(',')) {
        expect(() => parseRbaCsv(`${whole.slice(0, cut)}\n`), `cut at ${cut}, then a line break`).toThrow(RbaFormatError);
      }
    }
  });

  it('starts the data at the first dated row when there is no Series ID row', () => {
    const lines = raw.split('\n');
    lines.splice(10, 1); // drop Series ID: the data now starts on line 11
    expect(parseRbaCsv(lines.join('\n')).days).toHaveLength(8);
    lines[10] = lines[10]!.replace('03-Jan-2023', '2023-01-03');
    refusal(() => parseRbaCsv(lines.join('\n')), 11, "line 11: '2023-01-03' is not a valid date");
  });

  it('refuses an invalid publication date', () => {
    refusal(() => parseRbaCsv(setCell(raw, 10, 3, '32-May-2026')), 10, "line 10: publication date '32-May-2026' in column 4");
  });

  it('refuses a repeated header row', () => {
    refusal(() => parseRbaCsv(editLine(raw, 9, (l) => `${l}\nSource,x`)), 10, "line 10: second 'Source' row in the header block (first on line 9)");
  });
});

describe('parseRbaCsv speed', () => {
  it('parses a table of 1,000 days in well under 100 ms', () => {
    const lines = raw.split('\n');
    const template = lines[12]!.split(',');
    const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
    const rows: string[] = [];
    for (let i = 0; i < 1000; i++) {
      const d = new Date(Date.UTC(2020, 0, 1) + i * 86_400_000);
      template[0] = `${String(d.getUTCDate()).padStart(2, '0')}-${months[d.getUTCMonth()]}-${d.getUTCFullYear()}`;
      rows.push(template.join(','));
    }
    const text = [...lines.slice(0, 11), ...rows, ...Array<string>(1300).fill('')].join('\n');
    parseRbaCsv(text); // warm up
    const t0 = performance.now();
    const table = parseRbaCsv(text);
    const ms = performance.now() - t0;
    expect(table.days).toHaveLength(1000);
    expect(ms).toBeLessThan(100);
  });
});
