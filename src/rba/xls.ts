// The RBA's F11.1 workbooks (xls-hist/2018-2022.xls, 2023-current.xls): Excel
// 97-2003 (BIFF8). Sheet 'Data' holds the same header block as the CSV, one row
// per sheet row; sheet 'Notes' holds prose. In the real workbook:
//   - header cells are text; the 'Publication date' cells are date serials with
//     the number format dd\-mmm\-yyyy (so SheetJS shows '31-Oct-2025');
//   - the date column holds date serials with the same format;
//   - values are numbers (floats) with a number format per series: '0.0000'
//     (USD, EUR, …), '0.00' (TWI, JPY, …) or '0' (IDR, VND). The formatted text
//     is exactly the CSV's text ('61.40', '0.6400', '10635'). A few cells have
//     the format 'General' instead, which would show 0.64 as '0.64': those are
//     written with the number of decimals the rest of their column uses.
// Each row is turned into the texts the CSV would have, and then read by the
// same header-block logic as the CSV.

import * as XLSX from '@e965/xlsx';
import { isoFromParts, toRbaDate } from './dates.js';
import { isPlainDecimal } from '../domain/decimal.js';
import { decimalPlaces, formatFixed } from './decimal.js';
import { type Locator, atLine, formatError } from './errors.js';
import { type SheetRow, parseHeaderTable } from './table.js';
import type { RbaTable } from './types.js';

type Cell = XLSX.CellObject;

// SheetJS's number-format helpers are untyped in its declarations; these are the two used here.
const SSF = XLSX.SSF as {
  is_date(fmt: string): boolean;
  parse_date_code(serial: number, options: { date1904: boolean }): { y: number; m: number; d: number } | null;
};

// Decimals a plain number format shows: '0.0000' → 4, '0' → 0. Null for
// 'General', or for formats that would not give a plain decimal (thousands
// separators, text, colours, percentages, dates).
export function formatDecimals(fmt: string | number | undefined): number | null {
  if (typeof fmt !== 'string') return null;
  const m = /^0(?:\.(0+))?$/.exec(fmt.trim());
  return m ? (m[1]?.length ?? 0) : null;
}

function isDateFormat(fmt: string | number | undefined): boolean {
  return typeof fmt === 'string' && fmt !== 'General' && SSF.is_date(fmt);
}

/** An Excel date serial as 'YYYY-MM-DD' (calendar parts; 1900 leap-year bug handled by SSF). */
export function serialToIso(serial: number, date1904 = false): string | null {
  if (!Number.isFinite(serial) || serial < 1 || serial >= 2958466) return null;
  const d = SSF.parse_date_code(serial, { date1904 });
  return d ? isoFromParts(d.y, d.m, d.d) : null;
}

/**
 * A Date cell (SheetJS with cellDates) as 'YYYY-MM-DD': the date's calendar parts
 * as the Date shows them, not a UTC conversion of local midnight.
 */
export function dateCellToIso(date: Date): string | null {
  if (Number.isNaN(date.getTime())) return null;
  return isoFromParts(date.getFullYear(), date.getMonth() + 1, date.getDate());
}

// Decimals each column's values are published with: the most common decimals
// of its cells' number formats; failing any, the most decimals its values need.
function columnDecimals(ws: XLSX.WorkSheet, range: XLSX.Range): (number | null)[] {
  const out: (number | null)[] = [];
  for (let c = range.s.c; c <= range.e.c; c++) {
    const byFormat = new Map<number, number>();
    let widest = -1;
    for (let r = range.s.r; r <= range.e.r; r++) {
      const cell = ws[XLSX.utils.encode_cell({ r, c })] as Cell | undefined;
      if (!cell || cell.t !== 'n' || typeof cell.v !== 'number' || isDateFormat(cell.z)) continue;
      const dp = formatDecimals(cell.z);
      if (dp !== null) byFormat.set(dp, (byFormat.get(dp) ?? 0) + 1);
      const plain = String(cell.v);
      if (isPlainDecimal(plain)) widest = Math.max(widest, decimalPlaces(plain));
    }
    let best: number | null = null;
    let bestCount = 0;
    for (const [dp, n] of byFormat) {
      if (n > bestCount) {
        best = dp;
        bestCount = n;
      }
    }
    out[c] = best ?? (widest >= 0 ? widest : null);
  }
  return out;
}

// The text the RBA's CSV shows for a value cell.
function numberText(cell: Cell & { v: number }, places: number | null): string {
  const shown = typeof cell.w === 'string' ? cell.w.trim() : '';
  if (isPlainDecimal(shown) && (places === null || decimalPlaces(shown) === places)) return shown;
  if (places === null) return String(cell.v); // validated by the table logic
  return formatFixed(cell.v, places);
}

function dateText(serial: number, date1904: boolean): string {
  const iso = serialToIso(serial, date1904);
  return iso ? toRbaDate(iso) : String(serial);
}

function cellText(cell: Cell | undefined, asDate: boolean, places: number | null, date1904: boolean): string {
  if (!cell) return '';
  switch (cell.t) {
    case 'z':
      return '';
    case 's':
      return String(cell.v ?? '');
    case 'd': {
      const iso = cell.v instanceof Date ? dateCellToIso(cell.v) : null;
      return iso ? toRbaDate(iso) : String(cell.w ?? cell.v);
    }
    case 'n':
      if (typeof cell.v !== 'number') return String(cell.v ?? '');
      if (asDate || isDateFormat(cell.z)) return dateText(cell.v, date1904);
      return numberText(cell as Cell & { v: number }, places);
    default: // booleans and errors ('#N/A'): refused by the table logic as values
      return String(cell.w ?? cell.v ?? '');
  }
}

function pickSheet(wb: XLSX.WorkBook): string | undefined {
  const names = wb.SheetNames;
  const data = names.find((n) => n.trim().toLowerCase() === 'data');
  if (data) return data;
  // Otherwise the first sheet with a 'Units' row, else the first sheet.
  for (const name of names) {
    const ws = wb.Sheets[name];
    if (!ws?.['!ref']) continue;
    const range = XLSX.utils.decode_range(ws['!ref']);
    for (let r = range.s.r; r <= Math.min(range.e.r, 50); r++) {
      const a = ws[XLSX.utils.encode_cell({ r, c: range.s.c })] as Cell | undefined;
      if (a?.t === 's' && String(a.v).trim().toLowerCase() === 'units') return name;
    }
  }
  return names[0];
}

const OLE2_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];

const startsWith = (bytes: Uint8Array, magic: readonly number[]): boolean => bytes.length >= magic.length && magic.every((b, i) => bytes[i] === b);

/** An Excel 97-2003 workbook (OLE2 compound file) or an .xlsx (zip). */
export function isWorkbookBytes(bytes: Uint8Array): 'xls' | 'xlsx' | null {
  if (startsWith(bytes, OLE2_MAGIC)) return 'xls';
  if (startsWith(bytes, ZIP_MAGIC)) return 'xlsx';
  return null;
}

// An .xls is a compound file: a header, then sectors of 2^shift bytes (the shift is at byte 30),
// allocated in a table (the FAT) whose own sectors the header lists. A file shorter than its
// sectors is a file cut off, which SheetJS would otherwise read as far as it goes or fail on with
// an internal message (and noise on stderr): the cut is named here, before SheetJS reads it.
const HEADER_FAT_SECTORS = 109;
/** sector numbers from here up are markers: end of chain, free, … */
const MAX_SECTOR = 0xfffffffa;
const END_OF_CHAIN = 0xfffffffe;
const STREAM = 2;
const ROOT = 5;

function checkWholeSectors(bytes: Uint8Array): void {
  const shift = bytes.length >= 32 ? bytes[30]! | (bytes[31]! << 8) : 0;
  if (shift !== 9 && shift !== 12) {
    throw formatError(atLine, 1, 'not a readable Excel workbook (its compound-file header names no valid sector size)');
  }
  const sector = 1 << shift;
  const cutOff = (detail: string) =>
    formatError(atLine, 1, `the workbook is ${bytes.length} bytes, ${detail}: the file looks cut off, and nothing of it was stored`);
  if (bytes.length % sector !== 0) throw cutOff(`not a whole number of its ${sector}-byte sectors`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  // Sector n starts after the header, which takes the first sector.
  const sectors = bytes.length / sector - 1;
  const missing = (n: number) => n >= sectors;
  const fatCount = view.getUint32(44, true);
  const fatSectors: number[] = [];
  for (let i = 0; i < Math.min(fatCount, HEADER_FAT_SECTORS); i++) fatSectors.push(view.getUint32(76 + 4 * i, true));
  // Beyond the header's 109, the FAT's sectors are listed in a chain of DIFAT sectors.
  for (let difat = view.getUint32(68, true), hops = 0; fatSectors.length < fatCount && difat < sectors && hops < sectors; hops++) {
    const at = (difat + 1) * sector;
    for (let i = 0; i < sector / 4 - 1 && fatSectors.length < fatCount; i++) fatSectors.push(view.getUint32(at + 4 * i, true));
    difat = view.getUint32(at + sector - 4, true);
  }
  if (fatSectors.length < fatCount || fatSectors.some(missing)) throw cutOff('shorter than the allocation table its header lists');
  const perSector = sector / 4;
  const nextOf = (n: number) => {
    const fat = fatSectors[Math.floor(n / perSector)];
    return fat === undefined ? END_OF_CHAIN : view.getUint32((fat + 1) * sector + 4 * (n % perSector), true);
  };
  /** Follows a chain of sectors; every one must be in the file. */
  const follow = (first: number, visit: (at: number) => void = () => undefined) => {
    for (let n = first, hops = 0; n < MAX_SECTOR && hops <= sectors; n = nextOf(n), hops++) {
      if (missing(n)) throw cutOff(`shorter than the sectors its streams name`);
      visit((n + 1) * sector);
    }
  };
  follow(view.getUint32(60, true)); // the mini streams' allocation table
  const miniCutoff = view.getUint32(56, true);
  // The directory: the root's chain holds the small streams, a large stream has a chain of its own.
  follow(view.getUint32(48, true), (at) => {
    for (let entry = at; entry < at + sector; entry += 128) {
      const type = bytes[entry + 66];
      if (type === ROOT || (type === STREAM && view.getUint32(entry + 120, true) >= miniCutoff)) follow(view.getUint32(entry + 116, true));
    }
  });
}

export function parseRbaXls(bytes: Uint8Array): RbaTable {
  // SheetJS would happily read a text file as a one-column sheet: insist on a
  // real workbook container.
  const container = isWorkbookBytes(bytes);
  if (!container) {
    throw formatError(atLine, 1, 'not an Excel workbook (.xls files start with the OLE2 signature D0 CF 11 E0)');
  }
  if (container === 'xls') checkWholeSectors(bytes);
  let wb: XLSX.WorkBook;
  try {
    wb = XLSX.read(bytes, { type: 'array', cellNF: true, cellDates: false, cellHTML: false, cellStyles: false });
  } catch (err) {
    throw formatError(atLine, 1, `not a readable Excel workbook (${(err as Error).message ?? String(err)})`);
  }
  const sheetName = pickSheet(wb);
  const ws = sheetName === undefined ? undefined : wb.Sheets[sheetName];
  const where: Locator = (n) => `sheet '${sheetName ?? ''}' row ${n}`;
  if (!ws || !ws['!ref']) throw formatError(where, 1, 'the workbook has no data');

  const date1904 = Boolean(wb.Workbook?.WBProps?.date1904);
  const range = XLSX.utils.decode_range(ws['!ref']);
  const places = columnDecimals(ws, range);
  const rows: SheetRow[] = [];
  for (let r = range.s.r; r <= range.e.r; r++) {
    const cells: string[] = [];
    // Column A holds the row label or the date; anything before it is ignored
    // (the RBA sheet starts at A1).
    const label = ws[XLSX.utils.encode_cell({ r, c: 0 })] as Cell | undefined;
    const isPubDateRow = label?.t === 's' && /^publication\s+date$/i.test(String(label.v).trim());
    for (let c = 0; c <= range.e.c; c++) {
      const cell = ws[XLSX.utils.encode_cell({ r, c })] as Cell | undefined;
      // A number in column A, or in the Publication date row, is a date serial.
      cells.push(cellText(cell, c === 0 || isPubDateRow, places[c] ?? null, date1904));
    }
    rows.push({ line: r + 1, cells });
  }
  const { publicationDate, days } = parseHeaderTable(rows, where);
  return { format: 'xls', publicationDate, days };
}
