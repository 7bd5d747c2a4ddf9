// Period averages (GET /averages, D37 in docs/decisions.md): the figures accountants file. A period
// is named in one of five forms (a calendar year, an Australian financial year, a half, a quarter
// or a month) or given as a range; per code, over the rate days of the range that carry a value:
// the exact mean rounded half away from zero to 6 dp, the count, the first and last day, the value
// on the last day, the lowest and the highest.
//
// The whole history is in memory (RateHistory). Each code's values are kept a second time, once
// per history, as scaled integers with running sums: the sum over any range is one subtraction of
// two exact BigInts, the mean one exact integer division, and only the lowest and highest need a
// walk over the range, on plain numbers.
import { daysInMonth } from './calendar.js';
import { rateIn, type RateHistory } from './rate-history.js';

export interface DateRange {
  start: string;
  end: string;
}

/** A period's canonical name ('FY2025', '2025-Q3') and its first and last day. */
export interface NamedPeriod extends DateRange {
  name: string;
}

export interface AverageFigures {
  /** the exact mean of the values, rounded half away from zero to 6 dp */
  mean: string;
  /** the rate days of the range with a value */
  days: number;
  first_date: string;
  last_date: string;
  /** the value on last_date: the nearest actual rate at the range's end */
  end_rate: string;
  min: string;
  max: string;
}

export interface CodeAverages extends AverageFigures {
  code: string;
}

export interface MonthAverages {
  /** 'YYYY-MM' */
  month: string;
  rates: CodeAverages[];
}

const YEAR = /^(\d{4})$/;
const FINANCIAL_YEAR = /^FY(\d{4})$/;
const HALF = /^(\d{4})-H([12])$/;
const QUARTER = /^(\d{4})-Q([1-4])$/;
const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * The last day of month `month` (1–12) of `year`, as 'YYYY-MM-DD'. Worked out within the month, so
 * that December 9999, the last month a 'YYYY' name can give, needs no day of the year 10000.
 */
function lastDayOf(year: string, month: number): string {
  return `${year}-${pad(month)}-${pad(daysInMonth(Number(year), month))}`;
}

const months = (year: string, first: number, last: number): DateRange => ({ start: `${year}-${pad(first)}-01`, end: lastDayOf(year, last) });

/**
 * The period a name stands for: `YYYY` (calendar year), `FYYYYY` (the Australian financial year
 * ending 30 June of YYYY, as the ATO names it), `YYYY-H1`/`H2`, `YYYY-Q1`…`Q4` or `YYYY-MM`. Letters
 * in any case (`fy2025` is FY2025, as currency codes are read); null for anything else.
 */
export function namedPeriod(text: string): NamedPeriod | null {
  const name = text.trim().toUpperCase();
  let match: RegExpExecArray | null;
  let range: DateRange | null = null;
  // there is no year 0 (1 BC is followed by AD 1): a period of year 0000, or a financial year
  // that would start in it, is no period at all
  if (/^(FY)?0000/.test(name)) return null;
  if ((match = YEAR.exec(name))) range = months(match[1]!, 1, 12);
  else if ((match = FINANCIAL_YEAR.exec(name))) {
    const year = match[1]!;
    range = { start: `${String(Number(year) - 1).padStart(4, '0')}-07-01`, end: `${year}-06-30` };
  } else if ((match = HALF.exec(name))) range = match[2] === '1' ? months(match[1]!, 1, 6) : months(match[1]!, 7, 12);
  else if ((match = QUARTER.exec(name))) {
    const first = (Number(match[2]) - 1) * 3 + 1;
    range = months(match[1]!, first, first + 2);
  } else if ((match = MONTH.exec(name))) range = months(match[1]!, Number(match[2]), Number(match[2]));
  return range && { name, ...range };
}

/** The calendar months that [start, end] touches, each clipped to it. */
export function monthsOf({ start, end }: DateRange): (DateRange & { month: string })[] {
  const result: (DateRange & { month: string })[] = [];
  let from = start;
  while (from <= end) {
    const month = from.slice(0, 7);
    const last = lastDayOf(month.slice(0, 4), Number(month.slice(5, 7)));
    result.push({ month, start: from, end: last < end ? last : end });
    if (last >= end) break;
    const next = Number(month.slice(5, 7)) + 1;
    from = next > 12 ? `${String(Number(month.slice(0, 4)) + 1).padStart(4, '0')}-01-01` : `${month.slice(0, 4)}-${pad(next)}-01`;
  }
  return result;
}

/** One code's values over the whole history, kept for ranges: see the module's comment. */
interface Column {
  /** the value of each day as a number (for comparisons only), NaN where the code has none */
  values: Float64Array;
  /** sums[i]: the sum of the values of days [0, i), in units of 10^-places */
  sums: bigint[];
  /** counts[i]: how many of days [0, i) have a value */
  counts: Int32Array;
  /** the most decimal places of any of its values */
  places: number;
}

function buildColumn(history: RateHistory, code: string): Column {
  const { days } = history;
  let places = 0;
  for (const day of days) {
    const text = rateIn(day.rates, code);
    const dot = text?.indexOf('.') ?? -1;
    if (dot >= 0) places = Math.max(places, text!.length - dot - 1);
  }
  const values = new Float64Array(days.length);
  const sums = new Array<bigint>(days.length + 1);
  const counts = new Int32Array(days.length + 1);
  let sum = 0n;
  sums[0] = 0n;
  for (let i = 0; i < days.length; i++) {
    const text = rateIn(days[i]!.rates, code);
    if (text === undefined) {
      values[i] = Number.NaN;
      counts[i + 1] = counts[i]!;
    } else {
      values[i] = Number(text);
      counts[i + 1] = counts[i]! + 1;
      const [whole, fraction = ''] = text.split('.');
      sum += BigInt(whole! + fraction.padEnd(places, '0'));
    }
    sums[i + 1] = sum;
  }
  return { values, sums, counts, places };
}

/** Each history's columns, built the first time a code is asked for (a history never changes). */
const columnsOf = new WeakMap<RateHistory, Map<string, Column>>();

function columnOf(history: RateHistory, code: string): Column {
  let columns = columnsOf.get(history);
  if (!columns) columnsOf.set(history, (columns = new Map<string, Column>()));
  let column = columns.get(code);
  if (!column) columns.set(code, (column = buildColumn(history, code)));
  return column;
}

const MEAN_PLACES = 6;

/**
 * The exact mean of `count` values whose sum is `sum` × 10^-places, rounded half away from zero
 * (the values are positive: half up) to 6 dp, as the shortest decimal text: integer division of
 * exact integers, so the rational is never approximated before its one rounding.
 */
function meanOf(sum: bigint, places: number, count: number): string {
  const numerator = places <= MEAN_PLACES ? sum * 10n ** BigInt(MEAN_PLACES - places) : sum;
  const denominator = BigInt(count) * (places <= MEAN_PLACES ? 1n : 10n ** BigInt(places - MEAN_PLACES));
  const quotient = numerator / denominator + (2n * (numerator % denominator) >= denominator ? 1n : 0n);
  const text = quotient.toString().padStart(MEAN_PLACES + 1, '0');
  const fraction = text.slice(-MEAN_PLACES).replace(/0+$/, '');
  return fraction === '' ? text.slice(0, -MEAN_PLACES) : `${text.slice(0, -MEAN_PLACES)}.${fraction}`;
}

/** The figures of one code over the days [start, end) of the history; null when none has a value. */
function figuresOf(history: RateHistory, column: Column, code: string, start: number, end: number): AverageFigures | null {
  const count = column.counts[end]! - column.counts[start]!;
  if (count === 0) return null;
  const { values } = column;
  let first = start;
  while (Number.isNaN(values[first]!)) first++;
  let last = end - 1;
  while (Number.isNaN(values[last]!)) last--;
  let low = first;
  let high = first;
  for (let i = first + 1; i <= last; i++) {
    const value = values[i]!;
    if (value < values[low]!) low = i;
    else if (value > values[high]!) high = i;
  }
  const { days } = history;
  const valueOn = (i: number) => rateIn(days[i]!.rates, code)!;
  return {
    mean: meanOf(column.sums[end]! - column.sums[start]!, column.places, count),
    days: count,
    first_date: days[first]!.date,
    last_date: days[last]!.date,
    end_rate: valueOn(last),
    min: valueOn(low),
    max: valueOn(high),
  };
}

/**
 * The figures of each of `codes` (in that order; AUD is 1 on every rate day) over the stored days
 * in [start, end]; a code without a value there is left out.
 */
export function averagesOver(history: RateHistory, range: DateRange, codes: readonly string[]): CodeAverages[] {
  const { start, end } = history.indexesBetween(range.start, range.end);
  const result: CodeAverages[] = [];
  if (start === end) return result;
  for (const code of codes) {
    const figures = figuresOf(history, columnOf(history, code), code, start, end);
    if (figures) result.push({ code, ...figures });
  }
  return result;
}
