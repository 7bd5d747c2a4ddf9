// Excel workbooks (D44 in docs/decisions.md), written with SheetJS, the library the service already
// reads the RBA's workbooks with: real Excel dates, values as numbers formatted with the decimals
// the RBA published, and a `Source` sheet naming table F11.1, each code's series and when the data
// was read. A workbook is a zip archive written whole, so it is built when its first chunk is asked
// for, and its ETag is that of the rows it is built from (the same rows always give the same bytes).
import * as XLSX from '@e965/xlsx';
import { DateTime } from 'luxon';
import { daysBetween, SYDNEY } from '../domain/calendar.js';
import { isPublishedCode, PUBLISHED_SERIES, publishedPlaces, QUOTE_NOTE } from '../domain/currencies.js';
import { MEDIA_TYPES } from './representations.js';
import { StreamedBody, type Chunk } from './streamed-body.js';

export type Cell = XLSX.CellObject | string | null;

/** Excel's day 0 (its serial 1 is 1900-01-01, counting the 1900 leap day that never was). */
const EXCEL_EPOCH = '1899-12-30';
const CHUNK_BYTES = 64 * 1024;

/** A date as Excel holds it: the day's serial number, shown as YYYY-MM-DD. */
export const dateCell = (date: string): XLSX.CellObject => ({ t: 'n', v: daysBetween(EXCEL_EPOCH, date), z: 'yyyy-mm-dd' });

/** A decimal shown with `places` decimal places (a text with more keeps them all). */
export function decimalCell(text: string, places: number): XLSX.CellObject {
  const dot = text.indexOf('.');
  const shown = Math.max(places, dot < 0 ? 0 : text.length - dot - 1);
  return { t: 'n', v: Number(text), z: shown === 0 ? '0' : `0.${'0'.repeat(shown)}` };
}

/** A code's value, shown with its series' published decimals ('0.6400', '96.10', '10635'). */
export const publishedCell = (code: string, text: string): XLSX.CellObject => decimalCell(text, publishedPlaces(code));

export const integerCell = (value: number): XLSX.CellObject => ({ t: 'n', v: value, z: '0' });

/** An instant as a Sydney date and time. */
function sydneyTimeCell(instant: Date): XLSX.CellObject {
  const local = DateTime.fromJSDate(instant, { zone: SYDNEY });
  const day = daysBetween(EXCEL_EPOCH, local.toISODate()!);
  const fraction = (local.hour * 3600 + local.minute * 60 + local.second) / 86_400;
  return { t: 'n', v: day + fraction, z: 'yyyy-mm-dd hh:mm' };
}

export interface SheetData {
  name: string;
  /** the header row, then the records */
  rows: () => Iterable<readonly Cell[]>;
  /** each column's width, in characters */
  widths: readonly number[];
}

/** What the Source sheet says of the workbook. */
export interface WorkbookSource {
  /** what the sheets hold, in words ("Daily rates, 2023-01-01 to 2023-01-31") */
  contents: string;
  /** the codes whose series it holds, in the sheets' order */
  codes: readonly string[];
  /** when the rates were stored (read from the RBA); null when unknown */
  readAt: Date | null;
  /** further lines: [label, text] */
  notes?: readonly (readonly [string, string])[];
}

/** A row as the sheet holds it: its cells, an empty one a hole. */
function rowOf(row: readonly Cell[]): XLSX.CellObject[] {
  const cells: XLSX.CellObject[] = [];
  row.forEach((cell, c) => {
    if (cell !== null) cells[c] = typeof cell === 'string' ? { t: 's', v: cell } : cell;
  });
  return cells;
}

/**
 * A sheet in SheetJS's dense form (its rows as arrays of cells), filled from the rows as they are
 * made: no other copy of the table is held while it is built.
 */
function sheetOf(data: SheetData): XLSX.WorkSheet {
  const rows: XLSX.CellObject[][] = [];
  let width = 1;
  for (const row of data.rows()) {
    rows.push(rowOf(row));
    width = Math.max(width, row.length);
  }
  return {
    '!data': rows,
    '!ref': XLSX.utils.encode_range({ s: { r: 0, c: 0 }, e: { r: Math.max(rows.length, 1) - 1, c: width - 1 } }),
    '!cols': data.widths.map((wch) => ({ wch })),
  };
}

function sourceSheet(source: WorkbookSource): SheetData {
  const rows: Cell[][] = [
    ['Source', 'Reserve Bank of Australia, statistical table F11.1 "Exchange Rates" (daily, 4 pm Sydney time): https://www.rba.gov.au/statistics/tables/'],
    ['Contents', source.contents],
    ['Quotation', QUOTE_NOTE],
    ['Data read (Sydney time)', source.readAt ? sydneyTimeCell(source.readAt) : 'unknown'],
    ['Licence', "The RBA's figures, unchanged, under the Creative Commons Attribution 4.0 International licence"],
    ...(source.notes ?? []).map(([label, text]) => [label, text]),
    [],
    ['Code', 'Series ID', 'Title', 'Units', 'Decimals'],
  ];
  for (const code of source.codes) {
    if (!isPublishedCode(code)) continue; // AUD, the base, is 1: no series
    const series = PUBLISHED_SERIES[code];
    rows.push([code, series.seriesId, series.title, series.units, integerCell(series.places)]);
  }
  return { name: 'Source', rows: () => rows, widths: [24, 12, 36, 10, 10] };
}

/** The workbook's bytes: the sheets, then the Source sheet. */
function workbookBytes(sheets: readonly SheetData[], source: WorkbookSource): Uint8Array {
  const book = XLSX.utils.book_new();
  for (const data of [...sheets, sourceSheet(source)]) XLSX.utils.book_append_sheet(book, sheetOf(data), data.name);
  // Fixed properties, so that the same rows always give the same bytes.
  const stamp = source.readAt ?? new Date(0);
  book.Props = { Title: source.contents, Author: 'AUD exchange rates', CreatedDate: stamp, ModifiedDate: stamp };
  return XLSX.write(book, { type: 'buffer', bookType: 'xlsx', compression: true }) as Buffer;
}

/**
 * A workbook answer. `etagSource` is text that changes whenever the workbook would (its rows as
 * CSV, say): hashing it spares building the workbook for the ETag.
 */
export function workbookBody(filename: string, sheets: () => readonly SheetData[], source: WorkbookSource, etagSource: () => Iterable<string>): StreamedBody {
  return new StreamedBody(
    MEDIA_TYPES.xlsx,
    filename,
    function* () {
      const bytes = workbookBytes(sheets(), source);
      for (let at = 0; at < bytes.length; at += CHUNK_BYTES) yield bytes.subarray(at, at + CHUNK_BYTES);
    },
    function* (): Generator<Chunk> {
      yield `${filename}\n${source.readAt?.toISOString() ?? ''}\n`;
      yield* etagSource();
    },
  );
}
