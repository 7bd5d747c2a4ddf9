// `usage`: requests over a range of Sydney dates, grouped by any of day, week, month, account,
// plan, key, endpoint and outcome, with the range's total; read from the per-day counts the REST
// facade writes in batches (src/rest/usage.ts), never from logs.
import { resolveOffsetConnection } from '@pothos/plugin-relay';
import { sql, type RawBuilder } from 'kysely';
import { PlanEnum } from './account.js';
import { analyticsRead, checkPage, checkRange, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './analytics-support.js';
import { builder } from './builder.js';
import type { Plan } from '../domain/plans.js';

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
const UsageOrder = builder.enumType('UsageOrder', {
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
const GROUPING: Record<Dimension, RawBuilder<unknown>> = {
  DAY: sql`u.day`,
  WEEK: sql`date_trunc('week', u.day)::date`,
  MONTH: sql`date_trunc('month', u.day)::date`,
  ACCOUNT: sql`u.account_id`,
  PLAN: sql`a.plan`,
  KEY: sql`u.key_id`,
  ENDPOINT: sql`u.endpoint`,
  OUTCOME: OUTCOME_SQL,
};
const COLUMN: Record<Dimension, string> = {
  DAY: 'day',
  WEEK: 'week',
  MONTH: 'month',
  ACCOUNT: 'account_id',
  PLAN: 'plan',
  KEY: 'key_id',
  ENDPOINT: 'endpoint',
  OUTCOME: 'outcome',
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

const UsageReport = builder.objectRef<UsageArgs>('UsageReport').implement({
  authScopes: { operator: true },
  fields: (t) => ({
    from: t.field({ type: 'LocalDate', resolve: (r) => r.from }),
    to: t.field({ type: 'LocalDate', resolve: (r) => r.to }),
    totalRequests: t.int({
      resolve: (report, _args, ctx) =>
        analyticsRead(ctx, async (db) => {
          const { rows } = await sql<{ requests: number | null }>`
            SELECT sum(u.requests)::int8 AS requests FROM usage_daily u WHERE u.day BETWEEN ${report.from} AND ${report.to}`.execute(db);
          return Number(rows[0]?.requests ?? 0);
        }),
    }),
    groups: t.connection({
      type: UsageGroup,
      resolve: (report, args, ctx) => {
        checkPage(args);
        return resolveOffsetConnection({ args, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE }, ({ offset, limit }) =>
          analyticsRead(ctx, async (db) => (await groupsQuery(report, offset, limit).execute(db)).rows),
        );
      },
    }),
  }),
});

function groupsQuery({ from, to, groupBy, orderBy }: UsageArgs, offset: number, limit: number) {
  const dims = [...new Set(groupBy)];
  const selected = dims.map((d) => sql`${GROUPING[d]} AS ${sql.id(COLUMN[d])}`);
  const keys = dims.map((d) => sql.id(COLUMN[d]));
  // grouped by the expressions: an output name such as account_id would be ambiguous in GROUP BY
  const groupClause = dims.length > 0 ? sql`GROUP BY ${sql.join(dims.map((d) => GROUPING[d]))}` : sql``;
  const ordering = orderBy === 'REQUESTS_DESC' ? [sql`requests DESC`, ...keys] : keys;
  const orderClause = ordering.length > 0 ? sql`ORDER BY ${sql.join(ordering)}` : sql``;
  return sql<UsageGroupRow>`
    SELECT ${sql.join([...selected, sql`max(a.email) AS account_email`, sql`max(k.prefix) AS key_prefix`, sql`sum(u.requests)::int8 AS requests`])}
    FROM usage_daily u
    JOIN accounts a ON a.id = u.account_id
    JOIN api_keys k ON k.id = u.key_id
    WHERE u.day BETWEEN ${from} AND ${to}
    ${groupClause}
    ${orderClause}
    LIMIT ${limit} OFFSET ${offset}`;
}

builder.queryFields((t) => ({
  usage: t.field({
    type: UsageReport,
    description: 'Keyed requests over an inclusive range of Sydney dates (operator only)',
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
