// parseRbaFile: which of the three forms a file is, told from its bytes (the
// name is only used to make messages clearer).

import { parseRbaCsv } from './csv.js';
import { RbaFormatError } from './errors.js';
import { parseRbaRss } from './rss.js';
import type { RbaTable } from './types.js';
import { isWorkbookBytes, parseRbaXls } from './xls.js';

const refuse = (what: string) => new RbaFormatError(`line 1: ${what}`, 1);

function detectAndParse(bytes: Uint8Array): RbaTable {
  if (bytes.length === 0) throw refuse('the file is empty');
  if (isWorkbookBytes(bytes)) return parseRbaXls(bytes);

  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    throw refuse('the file is UTF-16 text; save the table as CSV (UTF-8) or download f11.1-data.csv');
  }
  // The decoder drops a UTF-8 BOM.
  const text = new TextDecoder('utf-8').decode(bytes);
  const head = text.trimStart();
  if (head === '') throw refuse('the file is empty (only whitespace)');
  if (head.startsWith('%PDF')) throw refuse('this is a PDF document, not an RBA F11.1 table (CSV, XLS or RSS)');
  if (text.slice(0, 1024).includes('\u0000')) throw refuse('this is a binary file, not an RBA F11.1 table (CSV, XLS or RSS)');
  if (head.startsWith('<')) {
    if (/^<(!doctype\s+html|html[\s>])/i.test(head)) {
      throw refuse('this is an HTML page, not an RBA F11.1 table (perhaps an error page saved instead of the download)');
    }
    return parseRbaRss(text);
  }
  return parseRbaCsv(text);
}

export function parseRbaFile(bytes: Uint8Array, name?: string): RbaTable {
  try {
    return detectAndParse(bytes);
  } catch (err) {
    if (name && err instanceof RbaFormatError) throw new RbaFormatError(`${name}: ${err.message}`, err.line);
    throw err;
  }
}
