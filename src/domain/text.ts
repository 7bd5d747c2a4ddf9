// Text the service accepts is text it can store and give back exactly. PostgreSQL refuses NUL
// (U+0000) in text, and a lone surrogate (half of a UTF-16 pair, as a JSON "\ud800" escape makes)
// has no UTF-8 form, so it would be written as U+FFFD. Bytes that are not UTF-8 have no exact text
// at all: a lenient decoder turns them into U+FFFD too. Every boundary decodes bytes strictly and
// checks the text it made with this one rule, before any database work.

/** fatal: bytes that are not UTF-8 are refused rather than replaced; a BOM is kept as it came. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The text of UTF-8 bytes, or null when they are not UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

/** NUL, or a surrogate not paired with its other half (searched without the `u` flag, by code unit). */
const UNSTORABLE = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why `text` cannot be stored exactly ("contains NUL (U+0000)"), or null when it can. */
export function textFault(text: string): string | null {
  const found = UNSTORABLE.exec(text)?.[0];
  if (found === undefined) return null;
  if (found === '\0') return 'contains NUL (U+0000)';
  return `contains a lone surrogate (U+${found.charCodeAt(0).toString(16).toUpperCase()}), which is not Unicode text`;
}

/** What strict decoding reports for bytes that are not UTF-8, worded like `textFault`. */
export const NOT_UTF8 = 'is not valid UTF-8';
