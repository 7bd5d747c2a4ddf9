// Period averages per currency (GET /averages, the dashboard's Reports page; D37 in
// docs/decisions.md): the figures accountants file, over a named period or a range of at most a year.
import { sydneyDate } from '../domain/calendar.js';
import { QUOTED_CODES, type CurrencyCode } from '../domain/currencies.js';
import { averagesOver, monthsOf, type CodeAverages, type DateRange, type MonthAverages } from '../domain/period-averages.js';
import type { RateHistory } from '../domain/rate-history.js';
import { NotFoundError } from '../errors.js';
import { builder } from './builder.js';
import { CurrencyCodeEnum } from './currency.js';
import { checkPeriodAverages } from './plan-rules.js';

interface PeriodAverages extends DateRange {
  complete: boolean;
  rates: CodeAverages[];
  history: RateHistory;
  /** the range the figures cover: [start, end] up to today */
  served: DateRange;
  codes: readonly CurrencyCode[];
}

const CurrencyAveragesRef = builder.objectRef<CodeAverages>('CurrencyAverages').implement({
  description: 'The figures of one code over the rate days of a range on which it has a value.',
  fields: (t) => ({
    code: t.field({ type: CurrencyCodeEnum, resolve: (figures) => figures.code as CurrencyCode }),
    mean: t.expose('mean', { type: 'Decimal', description: 'The exact mean of its values, rounded half away from zero to 6 dp' }),
    days: t.exposeInt('days', { description: 'How many rate days of the range carry a value for the code' }),
    firstDate: t.expose('first_date', { type: 'LocalDate' }),
    lastDate: t.expose('last_date', { type: 'LocalDate' }),
    endRate: t.expose('end_rate', { type: 'Decimal', description: 'The value on lastDate: the nearest actual rate at the end of the range' }),
    min: t.expose('min', { type: 'Decimal' }),
    max: t.expose('max', { type: 'Decimal' }),
  }),
});

const MonthAveragesRef = builder.objectRef<MonthAverages>('MonthAverages').implement({
  description: 'The figures of one calendar month of a range (clipped to the range).',
  fields: (t) => ({
    month: t.exposeString('month', { description: 'YYYY-MM' }),
    rates: t.field({ type: [CurrencyAveragesRef], resolve: (month) => month.rates }),
  }),
});

const PeriodAveragesRef = builder.objectRef<PeriodAverages>('PeriodAverages').implement({
  description: 'Period averages of each code over a range.',
  fields: (t) => ({
    startDate: t.expose('start', { type: 'LocalDate' }),
    endDate: t.expose('end', { type: 'LocalDate', description: 'The end of the range asked for, even while it runs' }),
    complete: t.exposeBoolean('complete', { description: 'False while the last day of the range is today or later (Sydney)' }),
    rates: t.field({ type: [CurrencyAveragesRef], resolve: (averages) => averages.rates }),
    months: t.field({
      type: [MonthAveragesRef],
      description: 'The same figures for each calendar month of the range, clipped to it; a month without values has none',
      resolve: ({ history, served, codes, start, end }) =>
        monthsOf({ start, end }).map(({ month, ...range }) => ({
          month,
          rates: range.start > served.end ? [] : averagesOver(history, { start: range.start, end: range.end < served.end ? range.end : served.end }, codes),
        })),
    }),
  }),
});

builder.queryField('periodAverages', (t) =>
  t.field({
    type: PeriodAveragesRef,
    description:
      'Mean, count, first and last day, end rate, lowest and highest of each code (all published codes, or `codes`) over [startDate, endDate], at most 365 days apart; a code without a value in the range is left out, and a range without any rate day is NOT_FOUND.',
    args: {
      startDate: t.arg({ type: 'LocalDate', required: true }),
      endDate: t.arg({ type: 'LocalDate', required: true }),
      codes: t.arg({ type: [CurrencyCodeEnum] }),
    },
    // a keyless viewer may not read a range (D12); the plan's rules are checked by checkPeriodAverages
    authScopes: { datedRates: true },
    resolve: async (_root, { startDate, endDate, codes }, ctx) => {
      checkPeriodAverages(ctx, startDate, endDate);
      const today = sydneyDate(ctx.services.clock());
      const history = await ctx.rates.history();
      const served = { start: startDate, end: endDate > today ? today : endDate };
      const stored = history.indexesBetween(served.start, served.end);
      if (stored.start === stored.end) throw new NotFoundError(`No data available between ${startDate} and ${endDate}`);
      const asked = codes ?? QUOTED_CODES;
      return { start: startDate, end: endDate, complete: endDate < today, rates: averagesOver(history, served, asked), history, served, codes: asked };
    },
  }),
);
