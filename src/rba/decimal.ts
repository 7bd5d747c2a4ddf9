import { Decimal } from 'decimal.js';

export function decimalPlaces(text: string): number {
  const dot = text.indexOf('.');
  return dot < 0 ? 0 : text.length - dot - 1;
}

// Writes a spreadsheet number with a fixed number of decimals, rounding half away
// from zero as Excel displays it. The number goes through its shortest round-trip
// text (String(n)), never through float arithmetic, so 0.64 → '0.6400' and
// 10635 → '10635'.
export function formatFixed(value: number, places: number): string {
  return new Decimal(String(value)).toFixed(places, Decimal.ROUND_HALF_UP);
}
