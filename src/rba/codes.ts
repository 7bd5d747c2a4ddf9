// Which of the RBA's columns and feed items hold a code this project stores.
import { PUBLISHED_CODES, PUBLISHED_SERIES, type PublishedCode } from '../domain/currencies.js';

const BY_UNIT: ReadonlyMap<string, PublishedCode> = new Map(PUBLISHED_CODES.map((code) => [PUBLISHED_SERIES[code].units.toLowerCase(), code]));

// Maps the text of a column's `Units` cell (or an RSS item's target currency /
// unit) to the code we store it under: the units of the series the service
// serves (src/domain/currencies.ts); the trade-weighted index has the unit
// `Index`. Anything else (AED, PGK, ZAR, SAR, SEK, …) is a series we do not serve: null.
export function unitToCode(unit: string): PublishedCode | null {
  return BY_UNIT.get(unit.trim().toLowerCase()) ?? null;
}
