// The CSV download of F11.1 (f11.1-data.csv), as published (UTF-8 BOM, LF) or
// re-saved from a spreadsheet (no BOM, CRLF, every line padded with commas, and
// long runs of comma-only lines at the end).

import { parse } from 'csv-parse/sync';
import { RbaFormatError, atLine, formatError } from './errors.js';
import { type SheetRow, parseHeaderTable } from './table.js';
import type { RbaTable } from './types.js';

const BLANK_LINE = /^[\s,]*$/;

// Without a double quote anywhere, CSV is exactly "lines split at commas", and
// splitting by hand is many times faster than a general CSV parser (the real
// 841-row file parses in a few ms this way). Lines with only commas and spaces
// are dropped here already: they are blank rows.
function splitUnquoted(text: string): SheetRow[] {
  const lines = text.split(/\r\n|\n|\r/);
  const rows: SheetRow[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (BLANK_LINE.test(line)) continue;
    rows.push({ line: i + 1, cells: line.split(',') });
  }
  return rows;
}

interface CsvInfoRecord {
  record: string[];
  info: { lines: number };
}

const NEWLINES = /\r\n|\n|\r/g;

// The line on which a quote that is never closed opens (quotes are doubled
// inside quoted fields, so the state just flips on every '"').
function unclosedQuoteLine(text: string): number | undefined {
  let line = 1;
  let openedOn: number | undefined;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 34) openedOn = openedOn === undefined ? line : undefined;
    else if (ch === 10 || (ch === 13 && text.charCodeAt(i + 1) !== 10)) line++;
  }
  return openedOn;
}

// Quoted fields (a title with a comma, say) go through csv-parse.
function splitQuoted(text: string): SheetRow[] {
  let records: CsvInfoRecord[];
  try {
    records = parse(text, {
      bom: true,
      info: true,
      relax_column_count: true,
      record_delimiter: ['\r\n', '\n', '\r'],
      skip_empty_lines: true,
    }) as unknown as CsvInfoRecord[];
  } catch (err) {
    const e = err as { code?: string; lines?: number; message?: string };
    // csv-parse reports an unclosed quote at the end of the input: name the line it opens on.
    const line = e.code === 'CSV_QUOTE_NOT_CLOSED' ? unclosedQuoteLine(text) : e.lines;
    throw formatError(atLine, line && line > 0 ? line : 1, `not readable as CSV: ${e.message ?? String(err)}`);
  }
  return records.map(({ record, info }) => {
    // info.lines is the line the record ends on; report the line it starts on.
    let inner = 0;
    for (const field of record) inner += field.match(NEWLINES)?.length ?? 0;
    return { line: info.lines - inner, cells: record };
  });
}

function splitCsv(text: string): SheetRow[] {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const rows = body.includes('"') ? splitQuoted(body) : splitUnquoted(body);
  // Every line the RBA writes ends with a line break: without one, the file was cut off, perhaps
  // inside the last value ('4.74' of '4.7479'), which no field count can tell.
  const last = rows.at(-1);
  if (last && !/[\r\n]$/.test(body)) {
    throw formatError(atLine, last.line, 'the last line has no line break: the file looks cut off, and nothing of it was stored');
  }
  return rows;
}

export function parseRbaCsv(text: string): RbaTable {
  if (text.includes('\u0000')) {
    throw new RbaFormatError('line 1: this is a binary file, not a CSV table', 1);
  }
  const { publicationDate, days } = parseHeaderTable(splitCsv(text), atLine);
  return { format: 'csv', publicationDate, days };
}
