// Period figures for one currency over a run of rate days (the /fluctuation endpoint): where it
// started and ended, how far it moved, and its range and mean. Exact decimals throughout; only
// change_pct and mean are rounded (half away from zero, 6 dp), as their exact values need not end.
import { Dec, normalizeDecimal } from './decimal.js';

export interface Fluctuation {
  start_rate: string;
  end_rate: string;
  change: string;
  change_pct: string;
  min: string;
  max: string;
  mean: string;
  /** how many of the days carry a rate for the code */
  days: number;
}

const ROUNDED_PLACES = 6;

/**
 * The figures for one code over `values`: its rates on the days that have one, in ascending date
 * order (days without a rate are left out before calling). Null when there is none.
 */
export function fluctuationOf(values: readonly string[]): Fluctuation | null {
  const first = values[0];
  const last = values[values.length - 1];
  if (first === undefined || last === undefined) return null;
  let min = new Dec(first);
  let max = min;
  let sum = new Dec(0);
  for (const value of values) {
    const rate = new Dec(value);
    if (rate.lessThan(min)) min = rate;
    if (rate.greaterThan(max)) max = rate;
    sum = sum.plus(rate);
  }
  const start = new Dec(first);
  const change = new Dec(last).minus(start);
  return {
    start_rate: normalizeDecimal(start),
    end_rate: normalizeDecimal(last),
    change: normalizeDecimal(change),
    // A start of zero never occurs in the RBA's tables; it would make the share undefined.
    change_pct: start.isZero() ? '0' : normalizeDecimal(change.dividedBy(start).times(100).toDecimalPlaces(ROUNDED_PLACES)),
    min: normalizeDecimal(min),
    max: normalizeDecimal(max),
    mean: normalizeDecimal(sum.dividedBy(values.length).toDecimalPlaces(ROUNDED_PLACES)),
    days: values.length,
  };
}
