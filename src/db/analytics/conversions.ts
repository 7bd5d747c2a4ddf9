// The pairs /convert answered, from the per-day counts (and their monthly roll-up) the REST facade
// writes with its usage batches: the range's total and a page of its groups.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../database.js';
import { calendarGrouping, groupedClauses, type GroupOrder, type Grouping } from './grouping.js';
import { wholeMonthsThenDays, withinRanges } from './ranges.js';

export const CONVERSION_DIMENSIONS = ['DAY', 'WEEK', 'MONTH', 'PAIR', 'KEYED', 'DATED'] as const;
export type ConversionDimension = (typeof CONVERSION_DIMENSIONS)[number];

const GROUPING: Grouping<ConversionDimension> = {
  expression: {
    ...calendarGrouping(sql`c.day`).expression,
    PAIR: sql`c.from_code || '/' || c.to_code`,
    KEYED: sql`c.keyed`,
    DATED: sql`c.dated`,
  },
  column: { ...calendarGrouping(sql`c.day`).column, PAIR: 'pair', KEYED: 'keyed', DATED: 'dated' },
};

export interface ConversionReportArgs {
  from: string;
  to: string;
  groupBy: readonly ConversionDimension[];
  orderBy: GroupOrder;
}

/** One group of answered conversions; the dimensions not grouped by are absent. */
export interface ConversionGroupRow {
  day?: string;
  week?: string;
  month?: string;
  /** FROM/TO */
  pair?: string;
  keyed?: boolean;
  dated?: boolean;
  requests: number;
}

/**
 * The range's rows as `c`: groupings without days or weeks read the monthly roll-up for the whole
 * months of the range and daily rows for the days around them.
 */
function conversionsSource({ from, to, groupBy }: ConversionReportArgs, today: string) {
  if (groupBy.some((d) => d === 'DAY' || d === 'WEEK')) return sql`conversions_daily c WHERE c.day BETWEEN ${from} AND ${to}`;
  const columns = sql`from_code, to_code, keyed, dated, requests`;
  const rows = wholeMonthsThenDays(
    { from, to, today },
    (first, last) => sql`SELECT month AS day, ${columns} FROM conversions_monthly WHERE month BETWEEN ${first} AND ${last}`,
    (days) => sql`SELECT day, ${columns} FROM conversions_daily WHERE ${withinRanges(sql`day`, days)}`,
  );
  return sql`(${rows}) c`;
}

/** The conversions answered over the range (`today`: the Sydney date now). */
export async function conversionTotal(db: Kysely<Database>, { from, to }: { from: string; to: string }, today: string): Promise<number> {
  const { rows } = await sql<{ requests: number | null }>`
    SELECT sum(c.requests)::int8 AS requests FROM ${conversionsSource({ from, to, groupBy: [], orderBy: 'GROUPS' }, today)}`.execute(db);
  return Number(rows[0]?.requests ?? 0);
}

/** A page of the report's groups (`today`: the Sydney date now). */
export async function conversionGroups(
  db: Kysely<Database>,
  report: ConversionReportArgs,
  today: string,
  offset: number,
  limit: number,
): Promise<ConversionGroupRow[]> {
  const clauses = groupedClauses(GROUPING, report.groupBy, report.orderBy);
  const { rows } = await sql<ConversionGroupRow>`
    SELECT ${sql.join([...clauses.selected, sql`sum(c.requests)::int8 AS requests`])}
    FROM ${conversionsSource(report, today)}
    ${clauses.groupBy}
    ${clauses.orderBy}
    LIMIT ${limit} OFFSET ${offset}`.execute(db);
  return rows;
}
