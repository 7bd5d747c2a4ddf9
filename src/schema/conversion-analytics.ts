// `conversions`: the pairs /convert answered over a range of Sydney dates, grouped by any of day,
// week, month, pair, keyed or not, and dated (historical) or latest; read from the per-day counts
// (and their monthly roll-up) the REST facade writes with its usage batches (src/rest/usage.ts).
import { resolveOffsetConnection } from '@pothos/plugin-relay';
import { sql } from 'kysely';
import { sydneyDate } from '../domain/calendar.js';
import {
  analyticsRead,
  calendarGrouping,
  checkPage,
  checkRange,
  DEFAULT_PAGE_SIZE,
  groupedClauses,
  MAX_PAGE_SIZE,
  wholeMonthsThenDays,
  withinRanges,
  type Grouping,
} from './analytics-support.js';
import { builder } from './builder.js';
import { UsageOrder } from './usage-analytics.js';

const DIMENSIONS = ['DAY', 'WEEK', 'MONTH', 'PAIR', 'KEYED', 'DATED'] as const;
type Dimension = (typeof DIMENSIONS)[number];

const ConversionDimension = builder.enumType('ConversionDimension', {
  description: 'What conversions are grouped by. WEEK starts on Monday; KEYED: with an API key or without; DATED: historical (a date given) or latest',
  values: DIMENSIONS,
});

const GROUPING: Grouping<Dimension> = {
  expression: {
    ...calendarGrouping(sql`c.day`).expression,
    PAIR: sql`c.from_code || '/' || c.to_code`,
    KEYED: sql`c.keyed`,
    DATED: sql`c.dated`,
  },
  column: { ...calendarGrouping(sql`c.day`).column, PAIR: 'pair', KEYED: 'keyed', DATED: 'dated' },
};

interface ConversionArgs {
  from: string;
  to: string;
  groupBy: readonly Dimension[];
  orderBy: 'GROUPS' | 'REQUESTS_DESC';
}

interface ConversionGroupRow {
  day?: string;
  week?: string;
  month?: string;
  pair?: string;
  keyed?: boolean;
  dated?: boolean;
  requests: number;
}

const ConversionGroup = builder.objectRef<ConversionGroupRow>('ConversionGroup').implement({
  description: 'One group of answered conversions (2xx and 304); the fields of the dimensions not grouped by are null',
  fields: (t) => ({
    day: t.string({ nullable: true, resolve: (r) => r.day ?? null }),
    week: t.string({ nullable: true, description: 'the Monday the week starts on', resolve: (r) => r.week ?? null }),
    month: t.string({ nullable: true, description: 'the first day of the month', resolve: (r) => r.month ?? null }),
    pair: t.string({ nullable: true, description: 'FROM/TO, e.g. USD/EUR', resolve: (r) => r.pair ?? null }),
    fromCurrency: t.string({ nullable: true, resolve: (r) => r.pair?.split('/')[0] ?? null }),
    toCurrency: t.string({ nullable: true, resolve: (r) => r.pair?.split('/')[1] ?? null }),
    keyed: t.boolean({ nullable: true, description: 'with an API key (false: the keyless free mode)', resolve: (r) => r.keyed ?? null }),
    dated: t.boolean({ nullable: true, description: 'historical, at a given date (false: the latest rates)', resolve: (r) => r.dated ?? null }),
    conversions: t.int({ resolve: (r) => r.requests }),
  }),
});

/**
 * The range's rows as `c`: groupings without days or weeks read the monthly roll-up for the whole
 * months of the range and daily rows for the days around them.
 */
function conversionsSource({ from, to, groupBy }: ConversionArgs, today: string) {
  if (groupBy.some((d) => d === 'DAY' || d === 'WEEK')) return sql`conversions_daily c WHERE c.day BETWEEN ${from} AND ${to}`;
  const columns = sql`from_code, to_code, keyed, dated, requests`;
  const rows = wholeMonthsThenDays(
    { from, to, today },
    (first, last) => sql`SELECT month AS day, ${columns} FROM conversions_monthly WHERE month BETWEEN ${first} AND ${last}`,
    (days) => sql`SELECT day, ${columns} FROM conversions_daily WHERE ${withinRanges(sql`day`, days)}`,
  );
  return sql`(${rows}) c`;
}

const ConversionReport = builder.objectRef<ConversionArgs>('ConversionReport').implement({
  authScopes: { operator: true },
  fields: (t) => ({
    from: t.field({ type: 'LocalDate', resolve: (r) => r.from }),
    to: t.field({ type: 'LocalDate', resolve: (r) => r.to }),
    totalConversions: t.int({
      resolve: (report, _args, ctx) =>
        analyticsRead(ctx, async (db) => {
          const { rows } = await sql<{ requests: number | null }>`
            SELECT sum(c.requests)::int8 AS requests FROM ${conversionsSource({ ...report, groupBy: [] }, sydneyDate(ctx.services.clock()))}`.execute(db);
          return Number(rows[0]?.requests ?? 0);
        }),
    }),
    groups: t.connection({
      type: ConversionGroup,
      resolve: (report, args, ctx) => {
        checkPage(args);
        const clauses = groupedClauses(GROUPING, report.groupBy, report.orderBy);
        return resolveOffsetConnection({ args, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE }, ({ offset, limit }) =>
          analyticsRead(ctx, async (db) => {
            const { rows } = await sql<ConversionGroupRow>`
              SELECT ${sql.join([...clauses.selected, sql`sum(c.requests)::int8 AS requests`])}
              FROM ${conversionsSource(report, sydneyDate(ctx.services.clock()))}
              ${clauses.groupBy}
              ${clauses.orderBy}
              LIMIT ${limit} OFFSET ${offset}`.execute(db);
            return rows;
          }),
        );
      },
    }),
  }),
});

builder.queryFields((t) => ({
  conversions: t.field({
    type: ConversionReport,
    description: 'The pairs /convert answered over an inclusive range of Sydney dates, keyed and keyless, dated and latest (operator only)',
    args: {
      from: t.arg({ type: 'LocalDate', required: true }),
      to: t.arg({ type: 'LocalDate', required: true }),
      groupBy: t.arg({ type: [ConversionDimension], required: true, defaultValue: [] }),
      orderBy: t.arg({ type: UsageOrder, required: true, defaultValue: 'GROUPS' }),
    },
    authScopes: { operator: true },
    resolve: (_root, args) => {
      checkRange(args.from, args.to);
      return args;
    },
  }),
}));
