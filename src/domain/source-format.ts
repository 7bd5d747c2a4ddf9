// The forms the RBA publishes table F11.1 in, as the parsers (src/rba) read them and as a
// publication records where its rates came from.
export const SOURCE_FORMATS = ['csv', 'xls', 'rss'] as const;
export type SourceFormat = (typeof SOURCE_FORMATS)[number];
