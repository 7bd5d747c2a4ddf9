// `usage`: requests over a range of Sydney dates, grouped by any of day, week, month, account,
// plan, key, endpoint and outcome, with the range's total, and keyless /convert requests by day
// and outcome; read from the per-day counts the REST facade writes in batches (src/rest/usage.ts),
// never from logs.
import { resolveOffsetConnection } from '@pothos/plugin-relay';
import { sql, type Kysely } from 'kysely';
import { PlanEnum } from './account.js';
import {
  analyticsRead,
  calendarGrouping,
  checkPage,
  checkRange,
  DEFAULT_PAGE_SIZE,
  groupedClauses,
  MAX_PAGE_SIZE,
  wholeMonthsThenDays,
  wholeYearsMonthsThenDays,
  withinRanges,
  type Grouping,
} from './analytics-support.js';
import { builder } from './builder.js';
import type { Database } from '../db/database.js';
import type { Plan } from '../domain/plans.js';
import { sydneyDate } from '../domain/calendar.js';

const DIMENSIONS = ['DAY', 'WEEK', 'MONTH', 'ACCOUNT', 'PLAN', 'KEY', 'ENDPOINT', 'OUTCOME'] as const;
type Dimension = (typeof DIMENSIONS)[number];
const OUTCOMES = ['SUCCESS', 'NOT_MODIFIED', 'CLIENT_ERROR', 'RATE_LIMITED', 'SERVER_ERROR'] as const;
export type Outcome = (typeof OUTCOMES)[number];

const UsageDimension = builder.enumType('UsageDimension', {
  description: 'What usage is grouped by. WEEK starts on Monday; PLAN is the account’s plan now.',
  values: DIMENSIONS,
});
export const UsageOutcome = builder.enumType('UsageOutcome', {
  description: 'SUCCESS 2xx, NOT_MODIFIED 304, CLIENT_ERROR 4xx but 429, RATE_LIMITED 429, SERVER_ERROR 5xx',
  values: OUTCOMES,
});
export const UsageOrder = builder.enumType('UsageOrder', {
  description: 'GROUPS: by the grouped values; REQUESTS_DESC: the busiest groups first (the top accounts, keys, …)',
  values: ['GROUPS', 'REQUESTS_DESC'] as const,
});

/** A recorded status's outcome, as OUTCOME_SQL groups it in the database. */
export function outcomeOf(status: number): Outcome {
  if (status === 304) return 'NOT_MODIFIED';
  if (status === 429) return 'RATE_LIMITED';
  if (status >= 500) return 'SERVER_ERROR';
  if (status >= 400) return 'CLIENT_ERROR';
  return 'SUCCESS';
}

const OUTCOME_SQL = sql<Outcome>`CASE
  WHEN u.status = 304 THEN 'NOT_MODIFIED'
  WHEN u.status = 429 THEN 'RATE_LIMITED'
  WHEN u.status >= 500 THEN 'SERVER_ERROR'
  WHEN u.status >= 400 THEN 'CLIENT_ERROR'
  ELSE 'SUCCESS' END`;

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

interface UsageArgs {
  from: string;
  to: string;
  groupBy: readonly Dimension[];
  orderBy: 'GROUPS' | 'REQUESTS_DESC';
}

interface UsageGroupRow {
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

const UsageGroup = builder.objectRef<UsageGroupRow>('UsageGroup').implement({
  description: 'One group of requests; the fields of the dimensions not grouped by are null',
  fields: (t) => ({
    day: t.string({ nullable: true, resolve: (r) => r.day ?? null }),
    week: t.string({ nullable: true, description: 'the Monday the week starts on', resolve: (r) => r.week ?? null }),
    month: t.string({ nullable: true, description: 'the first day of the month', resolve: (r) => r.month ?? null }),
    accountId: t.string({ nullable: true, resolve: (r) => r.account_id ?? null }),
    accountEmail: t.string({ nullable: true, resolve: (r) => (r.account_id ? r.account_email : null) }),
    plan: t.field({ type: PlanEnum, nullable: true, resolve: (r) => r.plan ?? null }),
    keyId: t.string({ nullable: true, resolve: (r) => r.key_id ?? null }),
    keyPrefix: t.string({ nullable: true, resolve: (r) => (r.key_id ? r.key_prefix : null) }),
    endpoint: t.string({ nullable: true, description: 'the REST route’s operation name (Latest, Convert, …)', resolve: (r) => r.endpoint ?? null }),
    outcome: t.field({ type: UsageOutcome, nullable: true, resolve: (r) => r.outcome ?? null }),
    requests: t.int({ resolve: (r) => r.requests }),
  }),
});

interface KeylessConvertRow {
  day: string;
  outcome: Outcome;
  requests: number;
}

const KeylessConvertGroup = builder.objectRef<KeylessConvertRow>('KeylessConvertGroup').implement({
  description: 'Keyless /convert requests of one Sydney day and outcome',
  fields: (t) => ({
    day: t.field({ type: 'LocalDate', resolve: (r) => r.day }),
    outcome: t.field({ type: UsageOutcome, resolve: (r) => r.outcome }),
    requests: t.int({ resolve: (r) => r.requests }),
  }),
});

const UsageReport = builder.objectRef<UsageArgs>('UsageReport').implement({
  authScopes: { operator: true },
  fields: (t) => ({
    from: t.field({ type: 'LocalDate', resolve: (r) => r.from }),
    to: t.field({ type: 'LocalDate', resolve: (r) => r.to }),
    totalRequests: t.int({
      resolve: (report, _args, ctx) =>
        analyticsRead(ctx, async (db) => {
          const { rows } = await sql<{ requests: number | null }>`
            SELECT sum(u.requests)::int8 AS requests FROM usage_totals_daily u WHERE u.day BETWEEN ${report.from} AND ${report.to}`.execute(db);
          return Number(rows[0]?.requests ?? 0);
        }),
    }),
    keylessConvertRequests: t.int({
      description: 'requests to /convert without a key over the range (they have no account, so are not in the groups)',
      resolve: (report, _args, ctx) =>
        analyticsRead(ctx, async (db) => {
          const { rows } = await sql<{ requests: number | null }>`
            SELECT sum(u.requests)::int8 AS requests FROM keyless_usage_daily u WHERE u.day BETWEEN ${report.from} AND ${report.to}`.execute(db);
          return Number(rows[0]?.requests ?? 0);
        }),
    }),
    keylessConvert: t.connection({
      type: KeylessConvertGroup,
      description: 'requests to /convert without a key, per Sydney day and outcome, oldest first',
      resolve: (report, args, ctx) => {
        checkPage(args);
        return resolveOffsetConnection({ args, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE }, ({ offset, limit }) =>
          analyticsRead(ctx, async (db) => {
            const { rows } = await sql<KeylessConvertRow>`
              SELECT u.day, ${OUTCOME_SQL} AS outcome, sum(u.requests)::int8 AS requests
              FROM keyless_usage_daily u
              WHERE u.endpoint = 'Convert' AND u.day BETWEEN ${report.from} AND ${report.to}
              GROUP BY u.day, 2 ORDER BY u.day, 2
              LIMIT ${limit} OFFSET ${offset}`.execute(db);
            return rows;
          }),
        );
      },
    }),
    groups: t.connection({
      type: UsageGroup,
      resolve: (report, args, ctx) => {
        checkPage(args);
        return resolveOffsetConnection({ args, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE }, ({ offset, limit }) =>
          analyticsRead(ctx, (db) => readGroups(db, report, sydneyDate(ctx.services.clock()), offset, limit)),
        );
      },
    }),
  }),
});

/** Groupings the roll-up without accounts answers (usage_totals_daily). */
const BY_TOTALS: ReadonlySet<Dimension> = new Set(['DAY', 'WEEK', 'MONTH', 'ENDPOINT', 'OUTCOME']);
/** Groupings the per-account roll-ups answer (usage_account_daily, _monthly and _yearly). */
const BY_ACCOUNT: ReadonlySet<Dimension> = new Set(['DAY', 'WEEK', 'MONTH', 'ACCOUNT', 'PLAN']);

/**
 * A report's rows from the per-account roll-ups, as (day, account_id, requests): the coarsest that
 * answer its grouping, so that a year is a few rows per account rather than one per day.
 */
function accountRows({ from, to, groupBy }: UsageArgs, today: string) {
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
function usageSource(args: UsageArgs, today: string) {
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
function pagedByAccount({ groupBy }: UsageArgs): boolean {
  const account = groupBy.indexOf('ACCOUNT');
  const plan = groupBy.indexOf('PLAN');
  return account >= 0 && (plan < 0 || plan > account) && groupBy.every((d) => BY_ACCOUNT.has(d));
}

/**
 * Such a report's page: grouped, ordered and paged on the roll-ups' rows alone, then only the
 * page's accounts joined for their plan and e-mail. The busiest of 10,000 accounts over the bench's
 * year (README, "Benchmark") are so summed from some 50,000 rows, with no join nor second grouping
 * of every account.
 */
function accountPageQuery(args: UsageArgs, today: string, offset: number, limit: number) {
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

function groupsQuery(args: UsageArgs, today: string, offset: number, limit: number) {
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

/** A page of a report's groups, read within the analytics transaction. */
async function readGroups(db: Kysely<Database>, args: UsageArgs, today: string, offset: number, limit: number): Promise<UsageGroupRow[]> {
  if (!pagedByAccount(args)) return (await groupsQuery(args, today, offset, limit).execute(db)).rows;
  // The planner takes the UNION ALL to hold some 200 accounts, not 10,000, and would share the sum
  // among parallel workers, then sort and merge their partial sums: over the bench's year about
  // twice as slow as one process hashing them. For this transaction only (set_config's `true`).
  await sql`SELECT set_config('max_parallel_workers_per_gather', '0', true)`.execute(db);
  return (await accountPageQuery(args, today, offset, limit).execute(db)).rows;
}

builder.queryFields((t) => ({
  usage: t.field({
    type: UsageReport,
    description: 'Requests with a key over an inclusive range of Sydney dates, and keyless /convert requests apart (operator only)',
    args: {
      from: t.arg({ type: 'LocalDate', required: true }),
      to: t.arg({ type: 'LocalDate', required: true }),
      groupBy: t.arg({ type: [UsageDimension], required: true, defaultValue: [] }),
      orderBy: t.arg({ type: UsageOrder, required: true, defaultValue: 'GROUPS' }),
    },
    authScopes: { operator: true },
    resolve: (_root, args) => {
      checkRange(args.from, args.to);
      return args;
    },
  }),
}));
