import { daysBetween, sydneyDate, unixTimestampOfDate } from '../domain/calendar.js';
import type { CurrencyCode } from '../domain/currencies.js';
import { pickRates, rateIn, RateSeries, type RateDay, type RateValues } from '../domain/rate-history.js';
import { NotFoundError, ServiceUnavailableError } from '../errors.js';
import { builder } from './builder.js';
import type { Context } from './context.js';
import { CurrencyCodeEnum } from './currency.js';
import { checkHistory, checkTimeSeries } from './plan-rules.js';

/** D38, D47: which way a date without rates looks for the nearest rate day (`nearest`: the nearer either way, the earlier on a tie). */
const RateFallbackEnum = builder.enumType('RateFallback', { values: ['previous', 'next', 'nearest'] as const });

export const RateDayRef = builder.objectRef<RateDay>('RateDay').implement({
  description: 'The rates the RBA published for one day.',
  fields: (t) => ({
    date: t.expose('date', { type: 'LocalDate' }),
    timestamp: t.field({
      type: 'SafeInt',
      description: 'Unix time of 00:00 UTC on the date',
      resolve: (day) => unixTimestampOfDate(day.date),
    }),
    rates: t.field({
      type: 'RateMap',
      description: 'Rates of the day, all published codes or only `codes`; AUD asked for explicitly is 1.',
      args: { codes: t.arg({ type: [CurrencyCodeEnum] }) },
      resolve: (day, { codes }) => ratesOf(day.rates, codes),
    }),
  }),
});

const ratesOf = (rates: RateValues, codes: readonly CurrencyCode[] | null | undefined): RateValues => (codes ? pickRates(rates, codes) : rates);

export const TimeSeriesRef = builder.objectRef<readonly RateDay[]>('TimeSeries').implement({
  description: 'The days of a date range that have data, ascending.',
  fields: (t) => ({
    days: t.field({ type: [RateDayRef], resolve: (days) => days }),
    rates: t.field({
      type: 'RateSeries',
      description: 'The whole series in one value: date → rates, all codes or only `codes` (AUD asked for is 1).',
      args: { codes: t.arg({ type: [CurrencyCodeEnum] }) },
      resolve: (days, { codes }) => new RateSeries(days, codes ?? null),
    }),
  }),
});

/**
 * The stored days in [start, end] under the time-series rules (D8, D13): the range checked against
 * the plan, and only days up to today in Sydney (the clock decides what "today" is).
 */
export async function daysInRange(ctx: Context, start: string, end: string): Promise<readonly RateDay[]> {
  checkTimeSeries(ctx, start, end);
  const today = sydneyDate(ctx.services.clock());
  return (await ctx.rates.history()).between(start, end > today ? today : end);
}

/** The days on which at least one of `codes` has a rate; all of them without codes. */
export const daysHaving = (days: readonly RateDay[], codes: readonly CurrencyCode[] | null | undefined): readonly RateDay[] =>
  codes ? days.filter((day) => codes.some((code) => rateIn(day.rates, code) !== undefined)) : days;

function noDataFor(date: string, codes?: readonly CurrencyCode[] | null): NotFoundError {
  if (!codes) return new NotFoundError(`No data available for date ${date}`);
  return new NotFoundError(
    codes.length === 1 ? `No ${codes[0]} rate available for date ${date}` : `No rate for any of ${codes.join(', ')} available for date ${date}`,
  );
}

/** D47: of the rate days before and after a date, the nearer; the earlier on a tie. */
function nearer(date: string, before: RateDay | undefined, after: RateDay | undefined): RateDay | undefined {
  if (!before || !after) return before ?? after;
  return daysBetween(before.date, date) <= daysBetween(date, after.date) ? before : after;
}

const WAY = { previous: 'on or before', next: 'on or after', nearest: 'before or after' } as const;

builder.queryFields((t) => ({
  latest: t.field({
    type: RateDayRef,
    description: 'The newest published day; with `having`, the newest day on which that code has a rate (D10).',
    args: { having: t.arg({ type: CurrencyCodeEnum }) },
    resolve: async (_root, { having }, ctx) => {
      const history = await ctx.rates.history();
      if (history.newestDate === null) throw new ServiceUnavailableError('No rates have been published to this service yet');
      const date = having && having !== 'AUD' ? history.newestByCode.get(having) : history.newestDate;
      if (!date) throw new NotFoundError(`No ${having} rate has been published`);
      return history.day(date)!;
    },
  }),
  rateDay: t.field({
    type: RateDayRef,
    description:
      'Exactly that date (D7); with `having`, only if one of those codes has a rate on it. With `fallback` (D38, D47), a date without rates (for `having`) answers with the nearest rate day before or after it that has them.',
    args: {
      date: t.arg({ type: 'LocalDate', required: true }),
      having: t.arg({ type: [CurrencyCodeEnum] }),
      fallback: t.arg({ type: RateFallbackEnum }),
    },
    authScopes: { datedRates: true },
    resolve: async (_root, { date, having, fallback }, ctx) => {
      checkHistory(ctx, date, 'the rates', true);
      const history = await ctx.rates.history();
      // AUD (1) is on every stored day: asked for, any day will do
      const codes = having?.length && !having.includes('AUD') ? having : null;
      const day = history.day(date);
      if (day && (!codes || codes.some((code) => rateIn(day.rates, code) !== undefined))) return day;
      if (!fallback) throw noDataFor(date, day ? codes : null);
      const nearest =
        fallback === 'nearest'
          ? nearer(date, history.nearestWithAny(codes, date, 'previous'), history.nearestWithAny(codes, date, 'next'))
          : history.nearestWithAny(codes, date, fallback);
      if (!nearest) {
        const way = WAY[fallback];
        throw new NotFoundError(codes ? `No ${codes.join(', ')} rate available ${way} ${date}` : `No data available ${way} ${date}`);
      }
      // D38: the plan's history window holds for the day used as for the day asked for.
      checkHistory(ctx, nearest.date, 'the rates', true);
      return nearest;
    },
  }),
  timeSeries: t.field({
    type: TimeSeriesRef,
    description: 'The days in [startDate, endDate] that have data, ascending (D8); with `having`, only days on which at least one of those codes has a rate.',
    args: {
      startDate: t.arg({ type: 'LocalDate', required: true }),
      endDate: t.arg({ type: 'LocalDate', required: true }),
      having: t.arg({ type: [CurrencyCodeEnum] }),
    },
    authScopes: { datedRates: true },
    resolve: async (_root, { startDate, endDate, having }, ctx) => {
      const stored = await daysInRange(ctx, startDate, endDate);
      const days = daysHaving(stored, having);
      if (days.length === 0) throw new NotFoundError(`No data available between ${startDate} and ${endDate}`);
      return days;
    },
  }),
}));
