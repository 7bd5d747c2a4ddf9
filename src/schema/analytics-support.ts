// What every analytics query shares: operator only, a bounded date range in Sydney dates, a page
// size limit that refuses rather than silently shortening a page, and a statement timeout.
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { Database } from '../db/database.js';
import { withStatementTimeout } from '../db/statement-timeout.js';
import { addDays, daysBetween } from '../domain/calendar.js';
import { BadRequestError } from '../errors.js';
import type { Context } from './context.js';

export const MAX_PAGE_SIZE = 500;
export const DEFAULT_PAGE_SIZE = 100;
/** one statement of an analytics query may run this long before the database cancels it */
export const ANALYTICS_STATEMENT_TIMEOUT_MS = 5_000;
const MAX_RANGE_DAYS = 3 * 366;

export interface PageArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
}

/** What this service's cursors look like (base64 of an offset); anything else is refused. */
const CURSOR = /^[A-Za-z0-9+/]{1,64}={0,2}$/;

/** Page sizes within the limit and cursors of this service's own shape. */
export function checkPage(args: PageArgs): void {
  for (const name of ['after', 'before'] as const) {
    const cursor = args[name];
    if (cursor != null && !CURSOR.test(cursor)) throw new BadRequestError(`${name} is not a cursor this service gave out`);
  }
  for (const name of ['first', 'last'] as const) {
    const size = args[name];
    if (size != null && (size < 0 || size > MAX_PAGE_SIZE)) {
      throw new BadRequestError(`${name} must be between 0 and ${MAX_PAGE_SIZE} (got ${size}); page on with the cursor`);
    }
  }
}

/** An inclusive range of Sydney dates, `from` not after `to`, at most about three years. */
export function checkRange(from: string, to: string): void {
  if (to < from) throw new BadRequestError(`to (${to}) must not be before from (${from})`);
  if (daysBetween(from, to) >= MAX_RANGE_DAYS) throw new BadRequestError(`A range may span at most ${MAX_RANGE_DAYS} days`);
}

/** Runs an analytics read under the statement timeout (the fields and types that read are the operator's: `authScopes`). */
export function analyticsRead<T>(ctx: Context, work: (trx: Transaction<Database> | Kysely<Database>) => Promise<T>): Promise<T> {
  return withStatementTimeout(ctx.services.db, ANALYTICS_STATEMENT_TIMEOUT_MS, work);
}

/** How a report groups by each of its dimensions: fixed SQL, never built from input. */
export interface Grouping<D extends string> {
  /** the expression grouped by */
  expression: Record<D, RawBuilder<unknown>>;
  /** the name it is selected as */
  column: Record<D, string>;
}

/** Grouping by the calendar: the Sydney day, its week (from Monday) and its month, of `day`. */
export function calendarGrouping(day: RawBuilder<unknown>): Grouping<'DAY' | 'WEEK' | 'MONTH'> {
  return {
    expression: { DAY: day, WEEK: sql`date_trunc('week', ${day})::date`, MONTH: sql`date_trunc('month', ${day})::date` },
    column: { DAY: 'day', WEEK: 'week', MONTH: 'month' },
  };
}

/**
 * The SELECT list, GROUP BY and ORDER BY of a grouped report: by the groups' values, or the
 * busiest groups first (`REQUESTS_DESC`, on the selected `requests`).
 */
export function groupedClauses<D extends string>(grouping: Grouping<D>, groupBy: readonly D[], orderBy: 'GROUPS' | 'REQUESTS_DESC') {
  const dims = [...new Set(groupBy)];
  const keys = dims.map((d) => sql.id(grouping.column[d]));
  const ordering = orderBy === 'REQUESTS_DESC' ? [sql`requests DESC`, ...keys] : keys;
  return {
    selected: dims.map((d) => sql`${grouping.expression[d]} AS ${sql.id(grouping.column[d])}`),
    // grouped by the expressions: an output name such as account_id would be ambiguous in GROUP BY
    groupBy: dims.length > 0 ? sql`GROUP BY ${sql.join(dims.map((d) => grouping.expression[d]))}` : sql``,
    orderBy: ordering.length > 0 ? sql`ORDER BY ${sql.join(ordering)}` : sql``,
  };
}

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
