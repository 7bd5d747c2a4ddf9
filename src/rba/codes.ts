// Which of the RBA's columns and feed items hold a code this project stores.
import { isPublishedCode, type PublishedCode } from '../domain/currencies.js';

// Maps the text of a column's `Units` cell (or an RSS item's target currency /
// unit) to the code we store it under. The trade-weighted index has the unit
// `Index` in the RBA's header block; every other series is named by its ISO code.
// Anything else (AED, PGK, ZAR, SAR, SEK, …) is a series we do not serve: null.
export function unitToCode(unit: string): PublishedCode | null {
  const u = unit.trim();
  if (u.toLowerCase() === 'index') return 'TWI';
  const upper = u.toUpperCase();
  return isPublishedCode(upper) ? upper : null;
}
