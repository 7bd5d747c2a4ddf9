// The whole stored history, or any range of it, in one answer (GET /export; D45 in
// docs/decisions.md): Business and Enterprise, no range limit. The days are the shared days of the
// request's generation of the rate history, never copied, so the facade writes its files from them
// a day at a time.
import { FIRST_DATE, sydneyDate } from '../domain/calendar.js';
import type { RateDay } from '../domain/rate-history.js';
import { NotFoundError } from '../errors.js';
import { builder } from './builder.js';
import { CurrencyCodeEnum } from './currency.js';
import { checkBulkExport } from './plan-rules.js';
import { daysHaving, TimeSeriesRef } from './rate-day.js';

interface RateExport {
  startDate: string;
  endDate: string;
  days: readonly RateDay[];
}

const RateExportRef = builder.objectRef<RateExport>('RateExport').implement({
  description: 'The stored days of a range of any length, ascending.',
  fields: (t) => ({
    startDate: t.expose('startDate', { type: 'LocalDate', description: 'The first day of the range: the one asked for, or 2018-01-01' }),
    endDate: t.expose('endDate', { type: 'LocalDate', description: 'The last day of the range: the one asked for, or today (Sydney)' }),
    series: t.field({ type: TimeSeriesRef, resolve: (e) => e.days }),
  }),
});

builder.queryFields((t) => ({
  rateExport: t.field({
    type: RateExportRef,
    description:
      'The stored days of [startDate, endDate] (by default 2018-01-01 to today), with no range limit (D45); with `having`, only days on which at least one of those codes has a rate. Business and Enterprise.',
    args: {
      startDate: t.arg({ type: 'LocalDate' }),
      endDate: t.arg({ type: 'LocalDate' }),
      having: t.arg({ type: [CurrencyCodeEnum] }),
    },
    authScopes: { datedRates: true },
    resolve: async (_root, { startDate, endDate, having }, ctx) => {
      const today = sydneyDate(ctx.services.clock());
      const start = startDate ?? FIRST_DATE;
      const end = endDate ?? today;
      checkBulkExport(ctx, start, end);
      const stored = (await ctx.rates.history()).between(start, end > today ? today : end);
      const days = daysHaving(stored, having);
      if (days.length === 0) throw new NotFoundError(`No data available between ${start} and ${end}`);
      return { startDate: start, endDate: end, days };
    },
  }),
}));
