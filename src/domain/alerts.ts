// Rate alerts' rules (docs/api.md, "Rate alerts"): when a condition fires at a publication, and the
// change it reports, in exact decimals.
import { Dec } from './decimal.js';

export type AlertConditionName = 'above' | 'below' | 'change_pct';

/** An alert's value: positive, at most 6 decimal places, below a billion (far above any rate or percentage). */
export const ALERT_VALUE_DECIMALS = 6;
export const ALERT_VALUE_MAX_DIGITS = 9;

/**
 * Whether an alert fires on a rate day's value, given the value of the previous rate day of that
 * code: `above` when the new value reaches the level and the previous was below it (a crossing,
 * not every day spent above), `below` the mirror, `change_pct` when the day's move, in per cent
 * either way, is at least the value.
 */
export function alertFires(condition: AlertConditionName, level: string, value: string, previous: string): boolean {
  const now = new Dec(value);
  const before = new Dec(previous);
  switch (condition) {
    case 'above':
      return now.gte(level) && before.lt(level);
    case 'below':
      return now.lte(level) && before.gt(level);
    case 'change_pct':
      return before.isZero() ? false : now.dividedBy(before).minus(1).times(100).abs().gte(level);
  }
}

/** (new / previous − 1) × 100, signed, rounded half away from zero to 6 places. */
export function changePercent(value: string, previous: string): string {
  return new Dec(value).dividedBy(previous).minus(1).times(100).toDecimalPlaces(6).toFixed();
}

/**
 * An alert's value read from what a client sent, or why it cannot be one. A JSON number is read
 * from its shortest text, which is exact for every value of at most 15 significant digits.
 */
export function alertValueFault(text: string): string | null {
  if (!/^\d+(\.\d+)?$/.test(text)) return 'must be a positive decimal number such as 0.65 or 2.5';
  const [whole, fraction = ''] = text.split('.') as [string, string?];
  // trailing zeros add no places: 0.6500000 is 0.65
  if (fraction.replace(/0+$/, '').length > ALERT_VALUE_DECIMALS) return `has at most ${ALERT_VALUE_DECIMALS} decimal places`;
  if (whole.replace(/^0+/, '').length > ALERT_VALUE_MAX_DIGITS) return `must be less than 1000000000`;
  if (new Dec(text).isZero()) return 'must be greater than 0';
  return null;
}
