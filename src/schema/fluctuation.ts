// Period figures per currency (GET /fluctuation): how each code moved over a date range, under the
// time-series rules of the plans (D8, D13 in docs/decisions.md).
import { QUOTED_CODES, type CurrencyCode } from '../domain/currencies.js';
import { fluctuationOf, type Fluctuation } from '../domain/fluctuation.js';
import { rateIn, type RateDay } from '../domain/rate-history.js';
import { NotFoundError } from '../errors.js';
import { builder } from './builder.js';
import { CurrencyCodeEnum } from './currency.js';
import { daysInRange } from './rate-day.js';

interface CurrencyFluctuation extends Fluctuation {
  code: CurrencyCode;
}

const CurrencyFluctuationRef = builder.objectRef<CurrencyFluctuation>('CurrencyFluctuation').implement({
  description: 'How one code moved over the days of a range on which it has a rate.',
  fields: (t) => ({
    code: t.expose('code', { type: CurrencyCodeEnum }),
    startRate: t.expose('start_rate', { type: 'Decimal', description: 'The rate on the first day of the range with one' }),
    endRate: t.expose('end_rate', { type: 'Decimal', description: 'The rate on the last day of the range with one' }),
    change: t.expose('change', { type: 'SignedDecimal', description: 'endRate − startRate, exact' }),
    changePct: t.expose('change_pct', {
      type: 'SignedDecimal',
      description: 'change / startRate × 100, rounded half away from zero to 6 dp',
    }),
    min: t.expose('min', { type: 'Decimal' }),
    max: t.expose('max', { type: 'Decimal' }),
    mean: t.expose('mean', { type: 'Decimal', description: 'The mean of its rates, rounded half away from zero to 6 dp' }),
    days: t.exposeInt('days', { description: 'How many days of the range carry a rate for the code' }),
  }),
});

/** The figures of each code, in the order asked (the code list's otherwise); codes without a rate are left out. */
function fluctuations(days: readonly RateDay[], codes: readonly CurrencyCode[]): CurrencyFluctuation[] {
  const figures: CurrencyFluctuation[] = [];
  for (const code of codes) {
    // AUD asked for explicitly is 1 on every day, as in a time series.
    const values = days.flatMap((day) => rateIn(day.rates, code) ?? []);
    const figure = fluctuationOf(values);
    if (figure) figures.push({ code, ...figure });
  }
  return figures;
}

builder.queryField('fluctuation', (t) =>
  t.field({
    type: [CurrencyFluctuationRef],
    description:
      'Start, end, change, range and mean of each code (all published codes, or `codes`) over [startDate, endDate]; a code without a rate in the range is left out, and a range without any rate day is NOT_FOUND.',
    args: {
      startDate: t.arg({ type: 'LocalDate', required: true }),
      endDate: t.arg({ type: 'LocalDate', required: true }),
      codes: t.arg({ type: [CurrencyCodeEnum] }),
    },
    // a keyless viewer may not read a range (D12); the plan's windows are checked by daysInRange
    authScopes: { datedRates: true },
    resolve: async (_root, { startDate, endDate, codes }, ctx) => {
      const days = await daysInRange(ctx, startDate, endDate);
      if (days.length === 0) throw new NotFoundError(`No data available between ${startDate} and ${endDate}`);
      return fluctuations(days, codes ?? QUOTED_CODES);
    },
  }),
);
