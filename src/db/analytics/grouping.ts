// How a grouped report builds its SELECT list, GROUP BY and ORDER BY from the dimensions asked
// for: fixed SQL per dimension, never built from input.
import { sql, type RawBuilder } from 'kysely';

/** How a report groups by each of its dimensions. */
export interface Grouping<D extends string> {
  /** the expression grouped by */
  expression: Record<D, RawBuilder<unknown>>;
  /** the name it is selected as */
  column: Record<D, string>;
}

/** The order of a grouped report: by the groups' values, or the busiest groups first. */
export type GroupOrder = 'GROUPS' | 'REQUESTS_DESC';

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
export function groupedClauses<D extends string>(grouping: Grouping<D>, groupBy: readonly D[], orderBy: GroupOrder) {
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
