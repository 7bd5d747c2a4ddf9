import * as XLSX from '@e965/xlsx';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RbaFormatError, parseRbaCsv, parseRbaFile, parseRbaXls } from '../../src/rba/index.js';
import { dateCellToIso, formatDecimals, serialToIso } from '../../src/rba/xls.js';
import { fixtureBytes, fixtureText, refusal } from './fixtures.js';

// f11.1-hist.xls is written by make-xls.ts from f11.1-data-excel-resaved.csv,
// in the real RBA workbook's layout: sheet 'Data' (then 'Notes'), header rows
// 1-11, data from row 12 with date serials in column A and numbers formatted
// '0.0000' / '0.00' / '0'; row 13 has 'General' on its value cells.
const xls = fixtureBytes('f11.1-hist.xls');

// Reads the fixture workbook, lets `edit` change sheet 'Data', writes it back.
function editedWorkbook(edit: (ws: XLSX.WorkSheet) => void, bookType: XLSX.BookType = 'biff8'): Uint8Array {
  const wb = XLSX.read(xls, { type: 'array', cellNF: true });
  edit(wb.Sheets['Data']!);
  return new Uint8Array(XLSX.write(wb, { type: 'array', bookType }) as ArrayBuffer);
}

describe('parseRbaXls on the RBA workbook layout', () => {
  const table = parseRbaXls(xls);

  it('is a BIFF8 workbook with the RBA sheet layout', () => {
    expect([...xls.slice(0, 4)]).toEqual([0xd0, 0xcf, 0x11, 0xe0]);
    const wb = XLSX.read(xls, { type: 'array', cellNF: true });
    expect(wb.SheetNames).toEqual(['Data', 'Notes']);
    const ws = wb.Sheets['Data']!;
    expect(ws['A1']!.v).toBe('F11.1  EXCHANGE RATES ');
    expect(ws['A6']!.v).toBe('Units');
    expect(ws['A7']).toBeUndefined();
    expect(ws['B10']).toMatchObject({ t: 'n', v: 45961, z: 'dd\\-mmm\\-yyyy' });
    expect(ws['A12']).toMatchObject({ t: 'n', v: 44929, w: '03-Jan-2023' });
    expect(ws['C12']).toMatchObject({ t: 'n', v: 61.4, w: '61.40', z: '0.00' });
    expect(ws['O12']).toMatchObject({ t: 'n', v: 10635, w: '10635', z: '0' });
    expect(ws['C13']).toMatchObject({ t: 'n', v: 61.5, w: '61.5', z: 'General' });
  });

  it('gives exactly the table of the equivalent CSV', () => {
    const csv = parseRbaCsv(fixtureText('f11.1-data-excel-resaved.csv'));
    expect(table).toEqual({ ...csv, format: 'xls' });
    expect(table.publicationDate).toBe('2025-10-31');
    expect(table.days).toHaveLength(7);
  });

  it('writes numbers with the decimals their series uses', () => {
    expect(table.days[0]!.rates).toMatchObject({ TWI: '61.40', EUR: '0.6400', NZD: '1.0760', IDR: '10635', JPY: '88.48' });
    // Row 13's cells are 'General' (they would show '61.5', '89.1', '0.914'…).
    expect(table.days[1]).toEqual({
      date: '2023-01-04',
      rates: {
        USD: '0.6811',
        TWI: '61.50',
        CNY: '4.6912',
        JPY: '89.10',
        EUR: '0.6437',
        KRW: '866.02',
        GBP: '0.5671',
        SGD: '0.9140',
        INR: '56.40',
        THB: '23.30',
        NZD: '1.0850',
        TWD: '20.90',
        MYR: '2.9990',
        IDR: '10630',
        VND: '16020',
        HKD: '5.3230',
        CHF: '0.6350',
        PHP: '38.10',
        SDR: '0.5120',
      },
    });
  });

  it('keeps the CAD and CHF gaps', () => {
    expect(table.days.map((d) => ['CAD' in d.rates, 'CHF' in d.rates])).toEqual([
      [false, true],
      [false, true],
      [false, true],
      [true, false],
      [true, false],
      [true, true],
      [true, true],
    ]);
  });

  it('reads the same table from an .xlsx', () => {
    const xlsx = editedWorkbook(() => {}, 'xlsx');
    expect([...xlsx.slice(0, 2)]).toEqual([0x50, 0x4b]);
    expect(parseRbaFile(xlsx)).toEqual(table);
  });

  it('rounds a value stored with more decimals than its format shows, as Excel shows it', () => {
    const bytes = editedWorkbook((ws) => {
      ws['B12'] = { t: 'n', v: 0.68275, z: '0.0000' }; // shown as 0.6828
      ws['C12'] = { t: 'n', v: 61.4, z: 'General' }; // shown as 61.4
    });
    expect(parseRbaXls(bytes).days[0]!.rates).toMatchObject({ USD: '0.6828', TWI: '61.40' });
  });

  it('reads text cells as the CSV would', () => {
    const bytes = editedWorkbook((ws) => {
      ws['A12'] = { t: 's', v: '03-Jan-2023' };
      ws['B12'] = { t: 's', v: ' 0.6828 ' };
    });
    expect(parseRbaXls(bytes).days[0]!.rates.USD).toBe('0.6828');
  });
});

describe('parseRbaXls refusals name the sheet row', () => {
  it('refuses a malformed value', () => {
    const bytes = editedWorkbook((ws) => {
      ws['E14'] = { t: 's', v: 'abc' };
    });
    refusal(() => parseRbaXls(bytes), 14, "sheet 'Data' row 14: 'abc' in column 5 (JPY) is not a plain non-negative decimal");
  });

  it('refuses a negative number', () => {
    const bytes = editedWorkbook((ws) => {
      ws['B15'] = { t: 'n', v: -1, z: '0.0000' };
    });
    refusal(() => parseRbaXls(bytes), 15, "sheet 'Data' row 15: '-1.0000' in column 2 (USD)");
  });

  it('refuses a bad date', () => {
    const bytes = editedWorkbook((ws) => {
      ws['A16'] = { t: 's', v: '31-Feb-2024' };
    });
    refusal(() => parseRbaXls(bytes), 16, "sheet 'Data' row 16: '31-Feb-2024' is not a valid date");
  });

  it('refuses duplicate dates', () => {
    const bytes = editedWorkbook((ws) => {
      ws['A13'] = { t: 'n', v: 44929, z: 'dd\\-mmm\\-yyyy' };
    });
    refusal(() => parseRbaXls(bytes), 13, "sheet 'Data' row 13: date 03-Jan-2023 appears twice (first on sheet 'Data' row 12)");
  });

  it('refuses the monthly table F11 as a workbook', () => {
    const rows = fixtureText('f11-data-monthly.csv')
      .replace(/^\uFEFF/, '')
      .split('\n')
      .map((l) => l.split(','));
    const wb = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet(rows), 'Data');
    const bytes = new Uint8Array(XLSX.write(wb, { type: 'array', bookType: 'biff8' }) as ArrayBuffer);
    refusal(() => parseRbaXls(bytes), 1, "sheet 'Data' row 1: this is the monthly table F11");
  });

  it('refuses a workbook cut off anywhere: not a whole number of sectors, or missing sectors', () => {
    refusal(
      () => parseRbaXls(xls.subarray(0, xls.length - 1)),
      1,
      `the workbook is ${xls.length - 1} bytes, not a whole number of its 512-byte sectors: the file looks cut off`,
    );
    for (let cut = 8; cut < xls.length; cut += 61) expect(() => parseRbaFile(xls.subarray(0, cut)), `cut at ${cut}`).toThrow(RbaFormatError);
    for (let cut = 512; cut < xls.length; cut += 512) expect(() => parseRbaFile(xls.subarray(0, cut)), `cut at sector ${cut / 512}`).toThrow(RbaFormatError);
  });

  it('names a cut at a sector boundary in plain words, and the parser writes nothing to stderr', () => {
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (written.push(String(chunk)), true));
    const consoleSpy = vi.spyOn(console, 'error').mockImplementation((...args) => void written.push(args.join(' ')));
    try {
      for (let cut = 512; cut < xls.length; cut += 512) {
        expect(() => parseRbaFile(xls.subarray(0, cut)), `cut at sector ${cut / 512}`).toThrow(
          new RegExp(`the workbook is ${cut} bytes, shorter than the (allocation table its header lists|sectors its streams name): the file looks cut off`),
        );
      }
    } finally {
      spy.mockRestore();
      consoleSpy.mockRestore();
    }
    expect(written).toEqual([]);
  });

  it('refuses an .xlsx cut off anywhere', () => {
    const xlsx = editedWorkbook(() => undefined, 'xlsx');
    for (let cut = 4; cut < xlsx.length; cut += 97) expect(() => parseRbaFile(xlsx.subarray(0, cut)), `cut at ${cut}`).toThrow(RbaFormatError);
  });

  it('refuses bytes that are not a workbook', () => {
    refusal(() => parseRbaXls(new TextEncoder().encode(fixtureText('f11.1-data.csv'))), 1, 'line 1: not an Excel workbook');
    const broken = new Uint8Array(512);
    broken.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
    refusal(() => parseRbaXls(broken), 1, 'line 1: not a readable Excel workbook');
  });
});

describe('workbook cell helpers', () => {
  const savedTz = process.env.TZ;
  afterEach(() => {
    if (savedTz === undefined) delete process.env.TZ;
    else process.env.TZ = savedTz;
  });

  it('converts date serials by calendar parts', () => {
    expect(serialToIso(44929)).toBe('2023-01-03');
    expect(serialToIso(45961)).toBe('2025-10-31');
    expect(serialToIso(61)).toBe('1900-03-01');
    expect(serialToIso(60)).toBeNull(); // Excel's phantom 29-Feb-1900
    expect(serialToIso(44929 - 1462, true)).toBe('2023-01-03');
    expect(serialToIso(44929.75)).toBe('2023-01-03');
    expect(serialToIso(-1)).toBeNull();
  });

  it.each([
    ['Australia/Sydney', -660],
    ['America/Los_Angeles', 480],
    ['UTC', 0],
    ['Pacific/Kiritimati', -840],
  ])('reads a Date cell as its calendar date in %s', (tz, offset) => {
    process.env.TZ = tz;
    expect(new Date(2023, 0, 3).getTimezoneOffset()).toBe(offset); // the zone is in force
    expect(dateCellToIso(new Date(2023, 0, 3))).toBe('2023-01-03');
    expect(dateCellToIso(new Date(2024, 1, 29, 23, 59))).toBe('2024-02-29');
  });

  it('reads the decimals of plain number formats only', () => {
    expect(formatDecimals('0.0000')).toBe(4);
    expect(formatDecimals('0.00')).toBe(2);
    expect(formatDecimals('0')).toBe(0);
    expect(formatDecimals('General')).toBeNull();
    expect(formatDecimals('#,##0.00')).toBeNull();
    expect(formatDecimals(undefined)).toBeNull();
  });
});
