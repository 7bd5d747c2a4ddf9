// CSV answers (D44, D48 in docs/decisions.md): a header row, then one row per record, LF line ends,
// no BOM; published values keep their series' decimals ('0.6400'), computed figures their own fixed places.
import { StreamedBody } from './streamed-body.js';

const CSV_TYPE = 'text/csv; charset=utf-8';

/** A CSV body, one chunk per row. */
export const csvBody = (filename: string, rows: () => Iterable<string>): StreamedBody => new StreamedBody(CSV_TYPE, filename, rows);

/** One CSV record: the fields are dates, codes and decimals, which never need quoting. */
export const csvRow = (fields: readonly string[]): string => `${fields.join(',')}\n`;
