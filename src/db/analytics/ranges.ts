// Reading a range of dates from roll-ups: the whole years and months from the yearly and monthly
// rows, the days around them from the daily rows, so that a long range reads few rows.
import { sql, type RawBuilder } from 'kysely';
import { addDays } from '../../domain/calendar.js';

/** An inclusive range of dates cut into its whole months and the days before and after them. */
export interface MonthSplit {
  /** the first days of the first and last whole months, or null when no month is whole */
  months: { first: string; last: string } | null;
  /** the days outside the whole months, as inclusive ranges (none, one or two) */
  days: [string, string][];
}

const firstOfMonth = (date: string) => `${date.slice(0, 8)}01`;
/** (the first of a month plus 31 days is always in the next month) */
const firstOfNextMonth = (date: string) => firstOfMonth(addDays(firstOfMonth(date), 31));

/**
 * Cuts `from`..`to` so that monthly roll-ups answer the whole months and daily rows the rest. No
 * rows exist after `today`, so a range reaching it holds the whole of its last month: this month
 * so far is answered by the roll-up alone.
 */
export function splitByWholeMonths(from: string, rangeTo: string, today: string): MonthSplit {
  const to = rangeTo >= today ? addDays(firstOfNextMonth(rangeTo), -1) : rangeTo;
  const start = from.endsWith('-01') ? from : firstOfNextMonth(from);
  const end = firstOfNextMonth(to) === addDays(to, 1) ? to : addDays(firstOfMonth(to), -1);
  if (start > end) return { months: null, days: [[from, rangeTo]] };
  const days: [string, string][] = [];
  if (from < start) days.push([from, addDays(start, -1)]);
  if (end < to) days.push([addDays(end, 1), rangeTo]);
  return { months: { first: start, last: firstOfMonth(end) }, days };
}

/** An inclusive range of dates cut into its whole years and the rest before and after them. */
export interface YearSplit {
  /** the first days of the first and last whole years, or null when no year is whole */
  years: { first: string; last: string } | null;
  /** the days outside the whole years, as inclusive ranges (none, one or two) */
  rest: [string, string][];
}

const firstOfYear = (date: string) => `${date.slice(0, 4)}-01-01`;
const firstOfNextYear = (date: string) => `${String(Number(date.slice(0, 4)) + 1).padStart(4, '0')}-01-01`;

/** Cuts `from`..`to` as splitByWholeMonths does, by years: a range reaching today holds the whole of its last year. */
export function splitByWholeYears(from: string, rangeTo: string, today: string): YearSplit {
  const to = rangeTo >= today ? addDays(firstOfNextYear(rangeTo), -1) : rangeTo;
  const start = from.endsWith('-01-01') ? from : firstOfNextYear(from);
  const end = to.endsWith('-12-31') ? to : addDays(firstOfYear(to), -1);
  if (start > end) return { years: null, rest: [[from, rangeTo]] };
  const rest: [string, string][] = [];
  if (from < start) rest.push([from, addDays(start, -1)]);
  if (end < to) rest.push([addDays(end, 1), rangeTo]);
  return { years: { first: start, last: firstOfYear(end) }, rest };
}

/** `column` within any of the ranges (false for none). */
export function withinRanges(column: RawBuilder<unknown>, ranges: readonly [string, string][]): RawBuilder<boolean> {
  if (ranges.length === 0) return sql<boolean>`false`;
  return sql<boolean>`(${sql.join(
    ranges.map(([from, to]) => sql`${column} BETWEEN ${from} AND ${to}`),
    sql` OR `,
  )})`;
}

/**
 * A range's rows from a monthly roll-up for its whole months (`monthly`, given the first days of
 * the first and last) and from daily rows for the days around them (`daily`, given those ranges),
 * as one UNION ALL.
 */
export function wholeMonthsThenDays(
  { from, to, today }: { from: string; to: string; today: string },
  monthly: (first: string, last: string) => RawBuilder<unknown>,
  daily: (ranges: readonly [string, string][]) => RawBuilder<unknown>,
): RawBuilder<unknown> {
  const { months, days } = splitByWholeMonths(from, to, today);
  const parts = [...(months ? [monthly(months.first, months.last)] : []), ...(days.length > 0 ? [daily(days)] : [])];
  return sql.join(parts, sql` UNION ALL `);
}

/**
 * The same with a yearly roll-up for the whole years (`yearly`, given the first days of the first
 * and last), and the monthly and daily rows for the months and days around them.
 */
export function wholeYearsMonthsThenDays(
  { from, to, today }: { from: string; to: string; today: string },
  yearly: (first: string, last: string) => RawBuilder<unknown>,
  monthly: (first: string, last: string) => RawBuilder<unknown>,
  daily: (ranges: readonly [string, string][]) => RawBuilder<unknown>,
): RawBuilder<unknown> {
  const { years, rest } = splitByWholeYears(from, to, today);
  const splits = rest.map(([restFrom, restTo]) => splitByWholeMonths(restFrom, restTo, today));
  const days = splits.flatMap((split) => split.days);
  const parts = [
    ...(years ? [yearly(years.first, years.last)] : []),
    ...splits.flatMap(({ months }) => (months ? [monthly(months.first, months.last)] : [])),
    ...(days.length > 0 ? [daily(days)] : []),
  ];
  return sql.join(parts, sql` UNION ALL `);
}
