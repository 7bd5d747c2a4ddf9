// CSV answers (issue 12's bulk export): a route that can answer CSV declares it (`csv` on the route),
// a client asks for it with `Accept: text/csv`. The body is a sequence of rows written as they are
// produced, so a year of every code is never one string; the rows come from the same unchanging
// data every time, so the answer can be walked twice (once for its ETag, once to send it).
import { createHash } from 'node:crypto';
import Negotiator from 'negotiator';

const CSV_TYPE = 'text/csv; charset=utf-8';
const MEDIA_TYPES = ['application/json', 'text/csv'];

/** Whether the Accept header prefers CSV to JSON; JSON when it names neither. */
export function prefersCsv(accept: string | null): boolean {
  if (accept === null) return false;
  return new Negotiator({ headers: { accept } }).mediaType(MEDIA_TYPES) === 'text/csv';
}

/** A CSV body: LF line ends, no BOM, one chunk per row. */
export class CsvBody {
  constructor(
    /** the name offered in Content-Disposition */
    readonly filename: string,
    readonly rows: () => Iterable<string>,
  ) {}

  /** A strong ETag over the bytes, hashed row by row. */
  etag(): string {
    const sha = createHash('sha1');
    for (const row of this.rows()) sha.update(row);
    return `"${sha.digest('base64url')}"`;
  }

  headers(): Record<string, string> {
    return { 'Content-Type': CSV_TYPE, 'Content-Disposition': `attachment; filename="${this.filename}"` };
  }
}

/** One CSV record: the fields are dates and decimals, which never need quoting. */
export const csvRow = (fields: readonly string[]): string => `${fields.join(',')}\n`;
