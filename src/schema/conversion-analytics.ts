// `conversions`: the pairs /convert answered over a range of Sydney dates, grouped by any of day,
// week, month, pair, keyed or not, and dated (historical) or latest; read from the per-day counts
// (and their monthly roll-up) the REST facade writes with its usage batches (src/rest/usage.ts).
import { resolveOffsetConnection } from '@pothos/plugin-relay';
import { CONVERSION_DIMENSIONS, conversionGroups, conversionTotal, type ConversionGroupRow, type ConversionReportArgs } from '../db/analytics/conversions.js';
import { sydneyDate } from '../domain/calendar.js';
import { analyticsRead, checkPage, checkRange, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './analytics-support.js';
import { builder } from './builder.js';
import { UsageOrder } from './usage-analytics.js';

const ConversionDimension = builder.enumType('ConversionDimension', {
  description: 'What conversions are grouped by. WEEK starts on Monday; KEYED: with an API key or without; DATED: historical (a date given) or latest',
  values: CONVERSION_DIMENSIONS,
});

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

const ConversionReport = builder.objectRef<ConversionReportArgs>('ConversionReport').implement({
  authScopes: { operator: true },
  fields: (t) => ({
    from: t.field({ type: 'LocalDate', resolve: (r) => r.from }),
    to: t.field({ type: 'LocalDate', resolve: (r) => r.to }),
    totalConversions: t.int({
      resolve: (report, _args, ctx) => analyticsRead(ctx, (db) => conversionTotal(db, report, sydneyDate(ctx.services.clock()))),
    }),
    groups: t.connection({
      type: ConversionGroup,
      resolve: (report, args, ctx) => {
        checkPage(args);
        return resolveOffsetConnection({ args, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE }, ({ offset, limit }) =>
          analyticsRead(ctx, (db) => conversionGroups(db, report, sydneyDate(ctx.services.clock()), offset, limit)),
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
