// The RBA's statistical-table layout, shared by the CSV download and the .xls
// workbook (a sheet read to rows of cells has the same header block):
//
//   F11.1  EXCHANGE RATES                     ← title (optional here)
//   Title,A$1=USD,Trade-weighted Index …,…
//   Description,…
//   Frequency,Daily,Daily,…
//   Type,Indicative,…
//   Units,USD,Index,CNY,…                     ← maps columns to codes
//   (blank or comma-only lines)
//   Source,WM/Reuters,RBA,…
//   Publication date,11-May-2026,…
//   Series ID,FXRUSD,FXRTWI,…
//   03-Jan-2023,0.6828,61.40,…                ← data rows
//
// Header rows are recognised by their first cell. Columns are mapped by their
// Units cell only (not position or title). Blank rows are ignored anywhere.

import { type PublishedCode, PUBLISHED_CODES } from '../domain/currencies.js';
import { unitToCode } from './codes.js';
import { parseRbaDate } from './dates.js';
import { isPlainDecimal } from '../domain/decimal.js';
import { type Locator, formatError } from './errors.js';
import type { RbaDay } from './types.js';

export interface SheetRow {
  /** 1-based line (CSV) or sheet row (XLS) */
  line: number;
  /** cell texts; trimmed here, so callers need not */
  cells: readonly string[];
}

export interface HeaderTable {
  publicationDate: string | null;
  days: RbaDay[];
}

type Label = 'title' | 'description' | 'frequency' | 'type' | 'units' | 'source' | 'publication date' | 'series id';

const LABELS: ReadonlySet<string> = new Set<Label>(['title', 'description', 'frequency', 'type', 'units', 'source', 'publication date', 'series id']);

const labelOf = (cell: string): Label | null => {
  const l = cell.toLowerCase().replace(/\s+/g, ' ');
  return LABELS.has(l) ? (l as Label) : null;
};

// A first cell starting with a digit is no header label: the data rows have
// begun (even without a Series ID row); whether it is a real date is checked later.
const LOOKS_LIKE_DATE = /^\d/;

export const MONTHLY_F11_MESSAGE = 'this is the monthly table F11 (end-of-month rates), not the daily table F11.1; download f11.1-data.csv';

const isBlank = (cells: readonly string[]): boolean => cells.every((c) => c === '');

function trimCells(cells: readonly string[]): string[] {
  const out = new Array<string>(cells.length);
  for (let i = 0; i < cells.length; i++) out[i] = cells[i]!.trim();
  return out;
}

// Index one past the last non-empty cell.
function usedWidth(cells: readonly string[]): number {
  let w = cells.length;
  while (w > 0 && cells[w - 1] === '') w--;
  return w;
}

interface Columns {
  /** codes by column index (index 0 is the date column) */
  codes: (PublishedCode | null)[];
  /** columns the header defines */
  width: number;
  /** cells in the Units row, empty ones included: every data row of a whole file has as many */
  fields: number;
  /** short name of each column for messages */
  names: string[];
}

export function parseHeaderTable(rows: Iterable<SheetRow>, where: Locator): HeaderTable {
  const fail = (line: number, what: string) => formatError(where, line, what);
  const header = new Map<Label, { line: number; cells: string[] }>();
  let phase: 'start' | 'header' | 'data' = 'start';
  let columns: Columns | null = null;
  let lastLine = 1;
  const seen = new Map<string, number>();
  const days: RbaDay[] = [];

  const checkTitle = (title: string, line: number): void => {
    const m = /^F(\d+(?:\.\d+)*)(?![\d.])/i.exec(title);
    if (!m) return; // not an RBA-style title: the Units row decides
    if (m[1] === '11') throw fail(line, MONTHLY_F11_MESSAGE);
    if (m[1] !== '11.1') {
      throw fail(line, `this is RBA table F${m[1]} ('${title}'), not the daily exchange-rate table F11.1`);
    }
  };

  const checkFrequency = (cells: string[], line: number): void => {
    for (let c = 1; c < cells.length; c++) {
      const f = cells[c]!;
      if (f === '' || /^daily$/i.test(f)) continue;
      if (/^monthly$/i.test(f)) throw fail(line, MONTHLY_F11_MESSAGE);
      throw fail(line, `column ${c + 1} has frequency '${f}'; the daily table F11.1 has only Daily series`);
    }
  };

  // The header block is complete: map the columns by their Units cells.
  const startData = (line: number): Columns => {
    const units = header.get('units');
    if (!units) {
      throw fail(line, "the header block has no 'Units' row, so the currency columns cannot be identified; this is not an RBA F11.1 table");
    }
    let width = 0;
    for (const row of header.values()) width = Math.max(width, usedWidth(row.cells));
    const seriesIds = header.get('series id')?.cells ?? [];
    const codes: (PublishedCode | null)[] = [null];
    const names: string[] = ['date'];
    const columnOf = new Map<PublishedCode, number>();
    for (let c = 1; c < width; c++) {
      const unit = units.cells[c] ?? '';
      const code = unit === '' ? null : unitToCode(unit);
      if (code) {
        const other = columnOf.get(code);
        if (other !== undefined) {
          throw fail(units.line, `columns ${other + 1} and ${c + 1} both have the unit of ${code}`);
        }
        columnOf.set(code, c);
      }
      codes.push(code);
      names.push(code ?? (unit || seriesIds[c] || `column ${c + 1}`));
    }
    if (columnOf.size === 0) {
      throw fail(units.line, `no column has a unit we serve (${PUBLISHED_CODES.join(', ')}; 'Index' for the TWI)`);
    }
    return { codes, width, fields: units.cells.length, names };
  };

  const dataRow = (cells: string[], line: number, cols: Columns): void => {
    // The RBA writes every row as wide as the header, so a row with fewer fields is a file cut
    // off in that row; storing what it has would replace a stored value with a cut-off one.
    if (cells.length !== cols.fields) {
      throw fail(
        line,
        `data row has ${cells.length} fields but the header has ${cols.fields}: ${cells.length < cols.fields ? 'the file looks cut off' : 'the row does not match the header'}, and nothing of it was stored`,
      );
    }
    const first = cells[0] ?? '';
    if (first === '') throw fail(line, 'data row has no date in its first cell');
    const date = parseRbaDate(first);
    if (!date) throw fail(line, `'${first}' is not a valid date (expected DD-Mon-YYYY, e.g. 03-Jan-2023)`);
    const earlier = seen.get(date);
    if (earlier !== undefined) throw fail(line, `date ${first} appears twice (first on ${where(earlier)})`);
    seen.set(date, line);

    const rates: Partial<Record<PublishedCode, string>> = {};
    let any = false;
    for (let c = 1; c < cells.length; c++) {
      const v = cells[c]!;
      if (v === '') continue; // not published that day
      if (c >= cols.width) {
        throw fail(line, `column ${c + 1} has the value '${v}' but the header block defines only ${cols.width} columns`);
      }
      if (!isPlainDecimal(v)) {
        throw fail(line, `'${v}' in column ${c + 1} (${cols.names[c]}) is not a plain non-negative decimal`);
      }
      const code = cols.codes[c];
      if (code) {
        rates[code] = v;
        any = true;
      }
    }
    // A row where none of our codes has a value is not a day for us.
    if (any) days.push({ date, rates });
  };

  for (const row of rows) {
    const cells = trimCells(row.cells);
    if (isBlank(cells)) continue;
    const line = row.line;
    lastLine = line;
    const first = cells[0]!;

    if (phase !== 'data') {
      const label = labelOf(first);
      if (label) {
        const earlier = header.get(label);
        if (earlier) throw fail(line, `second '${first}' row in the header block (first on ${where(earlier.line)})`);
        header.set(label, { line, cells });
        if (label === 'frequency') checkFrequency(cells, line);
        if (label === 'series id') {
          columns = startData(line);
          phase = 'data';
        } else {
          phase = 'header';
        }
        continue;
      }
      if (!LOOKS_LIKE_DATE.test(first)) {
        if (phase === 'start') checkTitle(first, line); // the table's title line
        phase = 'header';
        continue; // other header rows (or a blank first cell) carry nothing we need
      }
      columns = startData(line);
      phase = 'data';
    }
    dataRow(cells, line, columns!);
  }

  if (phase === 'start') throw fail(1, 'the file is empty');
  if (phase !== 'data') {
    if (!header.has('units')) throw fail(1, "no 'Units' row and no data rows found; this is not an RBA F11.1 table");
    throw fail(lastLine, 'the header block is not followed by any data rows');
  }
  if (seen.size === 0) throw fail(lastLine, 'the header block is not followed by any data rows');
  if (days.length === 0) {
    throw fail(lastLine, `no data row has a value for any of the codes we serve (${PUBLISHED_CODES.join(', ')})`);
  }

  days.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  return { publicationDate: publicationDate(header.get('publication date'), fail), days };
}

// The most common date in the 'Publication date' row (discontinued series keep
// an older one), ties going to the latest.
function publicationDate(row: { line: number; cells: string[] } | undefined, fail: (line: number, what: string) => Error): string | null {
  if (!row) return null;
  const counts = new Map<string, number>();
  for (let c = 1; c < row.cells.length; c++) {
    const text = row.cells[c]!;
    if (text === '') continue;
    const iso = parseRbaDate(text);
    if (!iso) throw fail(row.line, `publication date '${text}' in column ${c + 1} is not a valid date (expected DD-Mon-YYYY)`);
    counts.set(iso, (counts.get(iso) ?? 0) + 1);
  }
  let best: string | null = null;
  let bestCount = 0;
  for (const [iso, n] of counts) {
    if (n > bestCount || (n === bestCount && best !== null && iso > best)) {
      best = iso;
      bestCount = n;
    }
  }
  return best;
}
