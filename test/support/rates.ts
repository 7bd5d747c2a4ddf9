// Deterministic synthetic RBA tables for tests that need more data than the fixtures hold: any
// range of business days, with the precision the RBA publishes (D2 in docs/decisions.md), optional
// gaps per currency.
// Dates come from src/domain/calendar.ts so that "business day" means what the service means.
import { addDays, daysBetween, isBusinessDay } from '../../src/domain/calendar.js';
import { PUBLISHED_CODES, PUBLISHED_SERIES, type PublishedCode } from '../../src/domain/currencies.js';
import { toRbaDate } from '../../src/rba/dates.js';
import type { RbaDay, RbaTable } from '../../src/rba/index.js';

/** Decimal places the RBA publishes per code (D2). */
export const DECIMALS: Record<PublishedCode, number> = {
  USD: 4,
  EUR: 4,
  GBP: 4,
  JPY: 2,
  CNY: 4,
  KRW: 2,
  INR: 2,
  SGD: 4,
  NZD: 4,
  THB: 2,
  MYR: 4,
  IDR: 0,
  VND: 0,
  HKD: 4,
  PHP: 2,
  CAD: 4,
  CHF: 4,
  TWD: 2,
  TWI: 2,
  SDR: 4,
};

/** Typical levels of each series (units per 1 AUD); synthetic values wobble within ±1 % of these. */
const LEVEL: Record<PublishedCode, number> = {
  USD: 0.66,
  EUR: 0.61,
  GBP: 0.52,
  JPY: 98,
  CNY: 4.7,
  KRW: 880,
  INR: 55,
  SGD: 0.89,
  NZD: 1.09,
  THB: 23,
  MYR: 3.05,
  IDR: 10400,
  VND: 16200,
  HKD: 5.2,
  PHP: 37,
  CAD: 0.9,
  CHF: 0.58,
  TWD: 20.9,
  TWI: 61,
  SDR: 0.5,
};

/** Every business day (Mon–Fri, not an NSW public holiday) in [start, end], ascending. */
export function businessDays(start: string, end: string): string[] {
  const days: string[] = [];
  for (let d = start; d <= end; d = addDays(d, 1)) if (isBusinessDay(d)) days.push(d);
  return days;
}

/** The synthetic rate of `code` on `date`, as the RBA would print it ('0.6530', '98.12', '10385'). */
export function syntheticRate(code: PublishedCode, date: string): string {
  const n = daysBetween('2018-01-01', date);
  const i = PUBLISHED_CODES.indexOf(code);
  const wobble = (((n * 7919 + i * 104729) % 2001) - 1000) / 100_000; // -1 % … +1 %
  return (LEVEL[code] * (1 + wobble)).toFixed(DECIMALS[code]);
}

export interface SyntheticOptions {
  /** codes to publish (default: all 20) */
  codes?: readonly PublishedCode[];
  /** true to leave `code` out on `date` (a currency gap, as CAD before 2023-12-21) */
  omit?: (date: string, code: PublishedCode) => boolean;
}

export function syntheticDay(date: string, options: SyntheticOptions = {}): RbaDay {
  const rates: RbaDay['rates'] = {};
  for (const code of options.codes ?? PUBLISHED_CODES) {
    if (!options.omit?.(date, code)) rates[code] = syntheticRate(code, date);
  }
  return { date, rates };
}

/** A table of every business day in [start, end]. */
export function syntheticTable(start: string, end: string, options: SyntheticOptions = {}): RbaTable {
  return table(businessDays(start, end).map((date) => syntheticDay(date, options)));
}

/** A CSV-like table from hand-written days. */
export function table(days: RbaDay[]): RbaTable {
  return { format: 'csv', publicationDate: null, days };
}

/**
 * A table as the RBA's CSV download lays it out, as far as the parsers read it: the title line,
 * the Title, Units and Series ID rows of the published series, then a row per day (a blank where a
 * code was not published).
 */
export function rbaCsv(rates: RbaTable): string {
  const series = PUBLISHED_CODES.map((code) => PUBLISHED_SERIES[code]);
  const lines = [
    'F11.1  EXCHANGE RATES',
    ['Title', ...series.map((s) => s.title)].join(','),
    ['Units', ...series.map((s) => s.units)].join(','),
    ['Series ID', ...series.map((s) => s.seriesId)].join(','),
    ...rates.days.map((day) => [toRbaDate(day.date), ...PUBLISHED_CODES.map((code) => day.rates[code] ?? '')].join(',')),
  ];
  return `${lines.join('\n')}\n`;
}

/** The shortest exact text of a published value, as the service must print it ('61.40' → '61.4'). */
export function served(text: string): string {
  if (!text.includes('.')) return text.replace(/^0+(?=\d)/, '');
  return text
    .replace(/^0+(?=\d)/, '')
    .replace(/0+$/, '')
    .replace(/\.$/, '');
}

/** A day's rates as the parsed JSON of a response shows them. */
export function asNumbers(rates: RbaDay['rates'], codes?: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [code, value] of Object.entries(rates)) {
    if (value !== undefined && (!codes || codes.includes(code))) out[code] = Number(value);
  }
  return out;
}
