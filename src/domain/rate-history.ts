// Every stored rate, in memory: one immutable value per generation of the store. The whole 2018→now
// history is about 45,000 values, so each process holds all of it and answers every rate read
// (a date, the newest day, a range, the newest day on or before a date with both codes of a pair)
// without a query. A change to the stored rates builds a new history; one never changes.
import { publicationDueAfter } from './calendar.js';
import { canonicalRates, PUBLISHED_CODES } from './currencies.js';

/** code → exact decimal text as served ('61.4', not '61.40'), in the order of the code list */
export type RateValues = Readonly<Record<string, string>>;

export interface RateDay {
  readonly date: string;
  readonly rates: RateValues;
}

/** A code's rate in a day's rates: AUD, the base, is 1; undefined when the RBA published none that day. */
export function rateIn(rates: RateValues, code: string): string | undefined {
  return code === 'AUD' ? '1' : rates[code];
}

/**
 * Only `codes` of a day's rates, in the order asked for (AUD asked for is 1); a code without a rate
 * that day is left out. Every subset served (a response's `symbols`, a delivery's currencies) is this.
 */
export function pickRates(rates: RateValues, codes: readonly string[]): RateValues {
  const picked: Record<string, string> = {};
  for (const code of codes) {
    const rate = rateIn(rates, code);
    if (rate !== undefined) picked[code] = rate;
  }
  return picked;
}

/**
 * The rates of a range of days, all codes or only `codes` (a time series' answer). It refers to
 * the shared days rather than copying them: the REST facade writes its JSON straight from them
 * (src/json.ts), and JSON.stringify, for GraphQL clients, gets the date → rates map from `toJSON`.
 */
export class RateSeries {
  constructor(
    /** ascending */
    readonly days: readonly RateDay[],
    /** only these codes, in this order; null for every code */
    readonly codes: readonly string[] | null,
  ) {}

  /** Each day's date and rates (only `codes`, as pickRates gives them). */
  *entries(): Generator<[string, RateValues]> {
    const { codes } = this;
    for (const day of this.days) yield [day.date, codes ? pickRates(day.rates, codes) : day.rates];
  }

  toJSON(): Record<string, RateValues> {
    return Object.fromEntries(this.entries());
  }
}

/** One stored day, as the store holds it (code → any decimal text). */
export interface StoredRates {
  date: string;
  rates: Readonly<Record<string, string>>;
}

/** Index of the first of `dates` (ascending) that is greater than `date`. */
function upperBound(dates: readonly string[], date: string): number {
  let low = 0;
  let high = dates.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (dates[mid]! <= date) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Index of the first of `dates` (ascending) that is not less than `date`. */
function lowerBound(dates: readonly string[], date: string): number {
  let low = 0;
  let high = dates.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (dates[mid]! < date) low = mid + 1;
    else high = mid;
  }
  return low;
}

export class RateHistory {
  /** the stored days, ascending; only days with at least one value */
  readonly days: readonly RateDay[];
  readonly newestDate: string | null;
  /** the first publication slot after the newest date (D22 in docs/decisions.md): when the next day is due; null when nothing is stored */
  readonly nextDue: Date | null;
  /** the newest date on which each code has a rate */
  readonly newestByCode: ReadonlyMap<string, string>;
  /** how many values the history holds */
  readonly values: number;
  private readonly dates: readonly string[];
  private readonly byDate: ReadonlyMap<string, RateDay>;
  /**
   * Per code, for each day index i, the greatest index j <= i of a day with that code (-1: none):
   * the newest day with every code of a pair is found in a step or two, however long a gap is.
   */
  private readonly lastIndexWith: ReadonlyMap<string, Int32Array>;

  private constructor(
    days: RateDay[],
    /** when rates were last stored (inserted or corrected); null when never */
    readonly lastStoredAt: Date | null,
  ) {
    this.days = Object.freeze(days);
    this.dates = days.map((d) => d.date);
    this.byDate = new Map(days.map((d) => [d.date, d]));
    this.newestDate = days.at(-1)?.date ?? null;
    this.nextDue = this.newestDate === null ? null : publicationDueAfter(this.newestDate);
    const newestByCode = new Map<string, string>();
    const lastIndexWith = new Map<string, Int32Array>();
    let values = 0;
    for (const code of PUBLISHED_CODES) {
      const last = new Int32Array(days.length);
      let seen = -1;
      for (let i = 0; i < days.length; i++) {
        if (days[i]!.rates[code] !== undefined) {
          seen = i;
          values++;
        }
        last[i] = seen;
      }
      if (seen >= 0) {
        newestByCode.set(code, days[seen]!.date);
        lastIndexWith.set(code, last);
      }
    }
    this.newestByCode = newestByCode;
    this.lastIndexWith = lastIndexWith;
    this.values = values;
  }

  /** The history of these stored days (one entry per date, in any order); codes the service does not know are left out. */
  static of(stored: readonly StoredRates[], lastStoredAt: Date | null): RateHistory {
    const days: RateDay[] = [];
    for (const { date, rates: values } of [...stored].sort((a, b) => (a.date < b.date ? -1 : 1))) {
      const rates = canonicalRates(values);
      if (Object.keys(rates).length > 0) days.push(Object.freeze({ date, rates: Object.freeze(rates) }));
    }
    return new RateHistory(days, lastStoredAt);
  }

  /** Exactly that date's rates, or undefined when nothing is stored for it. */
  day(date: string): RateDay | undefined {
    return this.byDate.get(date);
  }

  /** The stored days in [from, to], ascending. */
  between(from: string, to: string): readonly RateDay[] {
    const { start, end } = this.indexesBetween(from, to);
    return this.days.slice(start, end);
  }

  /** The indexes in `days` of the stored days in [from, to]: [start, end). */
  indexesBetween(from: string, to: string): { start: number; end: number } {
    if (from > to) return { start: 0, end: 0 };
    return { start: lowerBound(this.dates, from), end: upperBound(this.dates, to) };
  }

  /**
   * The nearest day on or before `date` ('previous') or on or after it ('next') on which at least one
   * of `codes` has a rate (AUD always has); any stored day when `codes` is null.
   */
  nearestWithAny(codes: readonly string[] | null, date: string, way: 'previous' | 'next'): RateDay | undefined {
    const has = (day: RateDay) => codes === null || codes.some((code) => rateIn(day.rates, code) !== undefined);
    if (way === 'next') {
      for (let i = lowerBound(this.dates, date); i < this.days.length; i++) if (has(this.days[i]!)) return this.days[i];
    } else {
      for (let i = upperBound(this.dates, date) - 1; i >= 0; i--) if (has(this.days[i]!)) return this.days[i];
    }
    return undefined;
  }

  /** The newest day on or before `onOrBefore` on which every one of `codes` has a rate. */
  newestWith(codes: readonly string[], onOrBefore: string): RateDay | undefined {
    let index = upperBound(this.dates, onOrBefore) - 1;
    const columns: Int32Array[] = [];
    for (const code of codes) {
      const column = this.lastIndexWith.get(code);
      if (!column) return undefined;
      columns.push(column);
    }
    while (index >= 0) {
      let newest = index;
      for (const column of columns) newest = Math.min(newest, column[index]!);
      if (newest === index) return this.days[index];
      index = newest;
    }
    return undefined;
  }
}
