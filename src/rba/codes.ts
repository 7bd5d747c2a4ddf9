// The currency codes this project stores from the RBA's daily table F11.1.
// Every value is "A$1 = x units" (AUD is the base and is never stored itself).

export const PUBLISHED_CODES = [
  'USD', 'EUR', 'GBP', 'JPY', 'CNY', 'KRW', 'INR', 'SGD', 'NZD', 'THB',
  'MYR', 'IDR', 'VND', 'HKD', 'PHP', 'CAD', 'CHF', 'TWD', 'TWI', 'SDR',
] as const;

export type PublishedCode = (typeof PUBLISHED_CODES)[number];

const CODE_SET: ReadonlySet<string> = new Set(PUBLISHED_CODES);

export function isPublishedCode(value: string): value is PublishedCode {
  return CODE_SET.has(value);
}

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
