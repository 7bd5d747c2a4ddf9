// A page of a usage report's groups: requests with a key over a range of Sydney dates, grouped by
// any of day, week, month, account, plan, key, endpoint and outcome, read from the smallest
// roll-up that answers the grouping (src/db/usage.ts writes them).
import { sql, type Kysely } from 'kysely';
import type { Plan } from '../../domain/plans.js';
import type { Database } from '../database.js';
import { calendarGrouping, groupedClauses, type GroupOrder, type Grouping } from './grouping.js';
import { wholeMonthsThenDays, wholeYearsMonthsThenDays, withinRanges } from './ranges.js';
import { OUTCOME_SQL, type Outcome } from './usage-outcome.js';

export const USAGE_DIMENSIONS = ['DAY', 'WEEK', 'MONTH', 'ACCOUNT', 'PLAN', 'KEY', 'ENDPOINT', 'OUTCOME'] as const;
type Dimension = (typeof USAGE_DIMENSIONS)[number];

export interface UsageReportArgs {
  from: string;
  to: string;
  groupBy: readonly Dimension[];
  orderBy: GroupOrder;
}

/** One group of requests; the dimensions not grouped by are absent. */
export interface UsageGroupRow {
  day?: string;
  week?: string;
  month?: string;
  account_id?: string;
  account_email: string | null;
  plan?: Plan;
  key_id?: string;
  key_prefix: string | null;
  endpoint?: string;
  outcome?: Outcome;
  requests: number;
}

/** Each dimension's grouping expression: fixed SQL, never built from input. */
const GROUPING: Grouping<Dimension> = {
  expression: {
    ...calendarGrouping(sql`u.day`).expression,
    ACCOUNT: sql`u.account_id`,
    PLAN: sql`a.plan`,
    KEY: sql`u.key_id`,
    ENDPOINT: sql`u.endpoint`,
    OUTCOME: OUTCOME_SQL,
  },
  column: { ...calendarGrouping(sql`u.day`).column, ACCOUNT: 'account_id', PLAN: 'plan', KEY: 'key_id', ENDPOINT: 'endpoint', OUTCOME: 'outcome' },
};

/** Groupings the roll-up without accounts answers (usage_totals_daily). */
const BY_TOTALS: ReadonlySet<Dimension> = new Set(['DAY', 'WEEK', 'MONTH', 'ENDPOINT', 'OUTCOME']);
/** Groupings the per-account roll-ups answer (usage_account_daily, _monthly and _yearly). */
const BY_ACCOUNT: ReadonlySet<Dimension> = new Set(['DAY', 'WEEK', 'MONTH', 'ACCOUNT', 'PLAN']);

/**
 * A report's rows from the per-account roll-ups, as (day, account_id, requests): the coarsest that
 * answer its grouping, so that a year is a few rows per account rather than one per day.
 */
function accountRows({ from, to, groupBy }: UsageReportArgs, today: string) {
  const daily = (days: readonly [string, string][]) => sql`SELECT day, account_id, requests FROM usage_account_daily WHERE ${withinRanges(sql`day`, days)}`;
  if (groupBy.includes('DAY') || groupBy.includes('WEEK')) return daily([[from, to]]);
  const monthly = (first: string, last: string) =>
    sql`SELECT month AS day, account_id, requests FROM usage_account_monthly WHERE month BETWEEN ${first} AND ${last}`;
  if (groupBy.includes('MONTH')) return wholeMonthsThenDays({ from, to, today }, monthly, daily);
  const yearly = (first: string, last: string) =>
    sql`SELECT year AS day, account_id, requests FROM usage_account_yearly WHERE year BETWEEN ${first} AND ${last}`;
  return wholeYearsMonthsThenDays({ from, to, today }, yearly, monthly, daily);
}

/**
 * Where a report's rows come from, as `u` (day, account_id, key_id, endpoint, status, requests, as
 * far as the grouping needs them): the smallest table that answers the grouping.
 */
function usageSource(args: UsageReportArgs, today: string) {
  const { from, to, groupBy } = args;
  if (groupBy.every((d) => BY_TOTALS.has(d))) {
    return sql`usage_totals_daily u WHERE u.day BETWEEN ${from} AND ${to}`;
  }
  if (groupBy.every((d) => BY_ACCOUNT.has(d))) return sql`(${accountRows(args, today)}) u JOIN accounts a ON a.id = u.account_id`;
  return sql`usage_daily u JOIN accounts a ON a.id = u.account_id JOIN api_keys k ON k.id = u.key_id WHERE u.day BETWEEN ${from} AND ${to}`;
}

/** The per-account roll-ups' rows grouped by the calendar and the account, before any account is joined. */
const ACCOUNT_ROWS_GROUPING: Grouping<'DAY' | 'WEEK' | 'MONTH' | 'ACCOUNT'> = {
  expression: { ...calendarGrouping(sql`r.day`).expression, ACCOUNT: sql`r.account_id` },
  column: { ...calendarGrouping(sql`r.day`).column, ACCOUNT: 'account_id' },
};

/**
 * Whether a report is paged on the per-account roll-ups' rows before any account is joined: it is
 * grouped by account, and by the plan (the account's own) only after it, so its order needs no join.
 */
function pagedByAccount({ groupBy }: UsageReportArgs): boolean {
  const account = groupBy.indexOf('ACCOUNT');
  const plan = groupBy.indexOf('PLAN');
  return account >= 0 && (plan < 0 || plan > account) && groupBy.every((d) => BY_ACCOUNT.has(d));
}

/**
 * Such a report's page: grouped, ordered and paged on the roll-ups' rows alone, then only the
 * page's accounts joined for their plan and e-mail: the busiest accounts over a year are so summed
 * from the roll-ups' few rows per account, with no join nor second grouping of every account.
 */
function accountPageQuery(args: UsageReportArgs, today: string, offset: number, limit: number) {
  const dims = args.groupBy.filter((d): d is 'DAY' | 'WEEK' | 'MONTH' | 'ACCOUNT' => d !== 'PLAN');
  const clauses = groupedClauses(ACCOUNT_ROWS_GROUPING, dims, args.orderBy);
  const plan = args.groupBy.includes('PLAN') ? sql`a.plan` : sql`null`;
  return sql<UsageGroupRow>`
    SELECT g.*, ${plan} AS plan, a.email AS account_email, null AS key_prefix
    FROM (
      SELECT ${sql.join([...clauses.selected, sql`sum(r.requests)::int8 AS requests`])}
      FROM (${accountRows(args, today)}) r
      ${clauses.groupBy}
      ${clauses.orderBy}
      LIMIT ${limit} OFFSET ${offset}
    ) g
    JOIN accounts a ON a.id = g.account_id
    ${clauses.orderBy}`;
}

function groupsQuery(args: UsageReportArgs, today: string, offset: number, limit: number) {
  const clauses = groupedClauses(GROUPING, args.groupBy, args.orderBy);
  const needs = new Set(args.groupBy);
  // the e-mail and prefix shown beside an account or key: only those sources join them
  const email = needs.has('ACCOUNT') ? sql`max(a.email)` : sql`null`;
  const prefix = needs.has('KEY') ? sql`max(k.prefix)` : sql`null`;
  return sql<UsageGroupRow>`
    SELECT ${sql.join([...clauses.selected, sql`${email} AS account_email`, sql`${prefix} AS key_prefix`, sql`sum(u.requests)::int8 AS requests`])}
    FROM ${usageSource(args, today)}
    ${clauses.groupBy}
    ${clauses.orderBy}
    LIMIT ${limit} OFFSET ${offset}`;
}

/** A page of a report's groups (`today`: the Sydney date now), read within the analytics transaction. */
export async function usageGroups(db: Kysely<Database>, args: UsageReportArgs, today: string, offset: number, limit: number): Promise<UsageGroupRow[]> {
  if (!pagedByAccount(args)) return (await groupsQuery(args, today, offset, limit).execute(db)).rows;
  // The planner takes the UNION ALL to hold far fewer accounts than it does and would share the sum
  // among parallel workers, then sort and merge their partial sums: slower than one process
  // hashing them. For this transaction only (set_config's `true`).
  await sql`SELECT set_config('max_parallel_workers_per_gather', '0', true)`.execute(db);
  return (await accountPageQuery(args, today, offset, limit).execute(db)).rows;
}
