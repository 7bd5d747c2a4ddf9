// Excel workbooks (D44 in docs/decisions.md): real Excel dates, values as numbers formatted with the
// decimals the RBA published, and a `Source` sheet naming table F11.1, each code's series and when
// the data was read. The Office Open XML parts are written here and zipped as they are sent
// (src/rest/zip.ts), each sheet a row at a time, as the CSV is: what a workbook holds in memory does
// not grow with its rows (a workbook built whole in memory first takes many times its size).
// Its ETag is that of the rows it is written from (the same rows always give the same bytes).
import { DateTime } from 'luxon';
import { daysBetween, SYDNEY } from '../domain/calendar.js';
import { isPublishedCode, PUBLISHED_SERIES, publishedPlaces, QUOTE_NOTE } from '../domain/currencies.js';
import { MEDIA_TYPES } from './representations.js';
import { StreamedBody, type Chunk } from './streamed-body.js';
import { xlsxFiles, type Cell, type NumberCell, type SheetData } from './spreadsheet-ml.js';
import { zip } from './zip.js';

/** Excel's day 0 (its serial 1 is 1900-01-01, counting the 1900 leap day that never was). */
const EXCEL_EPOCH = '1899-12-30';

/** A date as Excel holds it: the day's serial number, shown as YYYY-MM-DD. */
export const dateCell = (date: string): NumberCell => ({ v: daysBetween(EXCEL_EPOCH, date), z: 'yyyy-mm-dd' });

/** A decimal shown with `places` decimal places (a text with more keeps them all). */
export function decimalCell(text: string, places: number): NumberCell {
  const dot = text.indexOf('.');
  const shown = Math.max(places, dot < 0 ? 0 : text.length - dot - 1);
  return { v: Number(text), z: shown === 0 ? '0' : `0.${'0'.repeat(shown)}` };
}

/** A code's value, shown with its series' published decimals ('0.6400', '96.10', '10635'). */
export const publishedCell = (code: string, text: string): NumberCell => decimalCell(text, publishedPlaces(code));

export const integerCell = (value: number): NumberCell => ({ v: value, z: '0' });

/** An instant as a Sydney date and time. */
function sydneyTimeCell(instant: Date): NumberCell {
  const local = DateTime.fromJSDate(instant, { zone: SYDNEY });
  const day = daysBetween(EXCEL_EPOCH, local.toISODate()!);
  const fraction = (local.hour * 3600 + local.minute * 60 + local.second) / 86_400;
  return { v: day + fraction, z: 'yyyy-mm-dd hh:mm' };
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

/**
 * A workbook answer. `etagSource` is text that changes whenever the workbook would (its rows as
 * CSV, say): hashing it spares writing the workbook for the ETag.
 */
export function workbookBody(filename: string, sheets: () => readonly SheetData[], source: WorkbookSource, etagSource: () => Iterable<string>): StreamedBody {
  return new StreamedBody(
    MEDIA_TYPES.xlsx,
    filename,
    // Fixed properties, so that the same rows always give the same bytes.
    () => zip(xlsxFiles([...sheets(), sourceSheet(source)], { title: source.contents, author: 'AUD exchange rates', stamp: source.readAt ?? new Date(0) })),
    function* (): Generator<Chunk> {
      yield `${filename}\n${source.readAt?.toISOString() ?? ''}\n`;
      yield* etagSource();
    },
  );
}
