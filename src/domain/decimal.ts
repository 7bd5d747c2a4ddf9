// Exact decimal arithmetic for rates and conversions (D2, D14, D15 in docs/decisions.md): never a
// binary float.
import { Decimal } from 'decimal.js';

// ROUND_HALF_UP in decimal.js rounds ties away from zero, as D15 asks.
export const Dec = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_UP });

const PLAIN_DECIMAL = /^\d+(\.\d+)?$/;

/** '100', '0.5', '1234.5678': digits with an optional fraction; no sign, exponent, hex or spaces. */
export function isPlainDecimal(text: string): boolean {
  return PLAIN_DECIMAL.test(text);
}

/**
 * The shortest exact text of a decimal: '61.40' → '61.4', '10635' → '10635', '0.000' → '0'. Plain
 * decimal text (every rate and amount) is trimmed as text, and a Decimal written as it is: every
 * conversion writes several, and building a Decimal for each was a tenth of its cost.
 */
export function normalizeDecimal(value: Decimal.Value): string {
  if (typeof value === 'string' && isPlainDecimal(value)) return trimDecimal(value);
  return (Decimal.isDecimal(value) ? value : new Dec(value)).toFixed();
}

export interface ConversionMaths {
  /** rate rounded half away from zero to 6 dp, normalised */
  rate: string;
  /** amount × unrounded rate, rounded half away from zero to 4 dp, normalised */
  result: string;
}

/** D15: rates are units of currency per 1 AUD, so rate(from→to) = rates[to] / rates[from]. */
export function convertAmount(amount: string, fromRate: string, toRate: string): ConversionMaths {
  const rate = new Dec(toRate).dividedBy(fromRate);
  return { rate: rate.toDecimalPlaces(6).toFixed(), result: rate.times(amount).toDecimalPlaces(4).toFixed() };
}

/** normalizeDecimal of text already known to be a plain decimal, as text (no Decimal built). */
export function trimDecimal(text: string): string {
  if (!text.includes('.')) return text.replace(/^0+(?=\d)/, '');
  const trimmed = text.replace(/^0+(?=\d)/, '').replace(/0+$/, '');
  return trimmed.endsWith('.') ? trimmed.slice(0, -1) : trimmed;
}

/**
 * A plain decimal's text with at least `places` decimal places, zeros added ('0.64', 4 → '0.6400';
 * '10635', 0 → '10635'). Never rounds: a text with more places keeps them all.
 */
export function padDecimal(text: string, places: number): string {
  const dot = text.indexOf('.');
  const have = dot < 0 ? 0 : text.length - dot - 1;
  if (have >= places) return text;
  return `${dot < 0 ? `${text}.` : text}${'0'.repeat(places - have)}`;
}
