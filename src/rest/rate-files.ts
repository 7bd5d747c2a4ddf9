// A range of rate days as files (GET /timeseries and /export; D44, D45, D48 in docs/decisions.md):
// CSV (a `date` column, then a column per code), NDJSON (a line per day, `{"date", "rates"}`) and an
// Excel workbook (a `Rates` sheet of the CSV's rows and a `Source` sheet). Each is written from the
// stored days of the request's generation as it is sent, a day at a time.
import { publishedText, QUOTED_CODES } from '../domain/currencies.js';
import type { RateSeries } from '../domain/rate-history.js';
import { ratesJson } from '../json.js';
import { csvBody, csvRow } from './csv.js';
import { MEDIA_TYPES } from './representations.js';
import { StreamedBody } from './streamed-body.js';
import type { Cell } from './spreadsheet-ml.js';
import { dateCell, publishedCell, workbookBody } from './workbook.js';

/** What the files of a range are named and say of themselves. */
export interface SeriesFile {
  /** the file name without its extension: `aud-rates_2023-01-01_2023-01-31` */
  stem: string;
  /** the range in words, for the workbook's Source sheet */
  contents: string;
  /** when the rates were stored (read from the RBA) */
  readAt: Date | null;
}

/** The files of the days of [start, end]; `readAt` when the rates were stored (an ISO instant), null when unknown. */
export const seriesFile = (start: string, end: string, readAt: string | null): SeriesFile => ({
  stem: `aud-rates_${start}_${end}`,
  contents: `Daily rates, ${start} to ${end}`,
  readAt: readAt === null ? null : new Date(readAt),
});

/** The columns: `symbols` in the order asked for, else every code in /latest's order. */
const columnsOf = (series: RateSeries): readonly string[] => series.codes ?? QUOTED_CODES;

/** The CSV's rows: a header `date,USD,EUR,…`, then a row per day, a blank where a code was not published. */
function* csvRows(series: RateSeries): Generator<string> {
  const columns = columnsOf(series);
  yield csvRow(['date', ...columns]);
  for (const [date, rates] of series.entries()) {
    yield csvRow([date, ...columns.map((code) => (rates[code] === undefined ? '' : publishedText(code, rates[code])))]);
  }
}

export const seriesCsv = (series: RateSeries, file: SeriesFile): StreamedBody => csvBody(`${file.stem}.csv`, () => csvRows(series));

/** One JSON object a line, as the JSON answer writes a day's rates (exact numbers). */
export const seriesNdjson = (series: RateSeries, file: SeriesFile): StreamedBody =>
  new StreamedBody(MEDIA_TYPES.ndjson, `${file.stem}.ndjson`, function* () {
    for (const [date, rates] of series.entries()) yield `{"date":"${date}","rates":${ratesJson(rates).text}}\n`;
  });

export function seriesWorkbook(series: RateSeries, file: SeriesFile): StreamedBody {
  const columns = columnsOf(series);
  const rows = function* (): Generator<Cell[]> {
    yield ['Date', ...columns];
    for (const [date, rates] of series.entries())
      yield [dateCell(date), ...columns.map((code) => (rates[code] === undefined ? null : publishedCell(code, rates[code])))];
  };
  return workbookBody(
    `${file.stem}.xlsx`,
    () => [{ name: 'Rates', rows, widths: [12, ...columns.map(() => 11)] }],
    { contents: file.contents, codes: columns, readAt: file.readAt },
    () => csvRows(series),
  );
}

/** The three files of a range. */
export const seriesFiles = {
  csv: seriesCsv,
  ndjson: seriesNdjson,
  xlsx: seriesWorkbook,
} as const;
