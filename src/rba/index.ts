// Pure parsers (bytes in, data out) for the three forms of the RBA's daily
// exchange-rate table F11.1: the CSV download, the .xls workbook and the RSS feed.

export { RbaFormatError } from './errors.js';
export type { RbaDay, RbaTable } from './types.js';
export { parseRbaCsv } from './csv.js';
export { parseRbaXls } from './xls.js';
export { parseRbaRss } from './rss.js';
export { parseRbaFile } from './detect.js';
