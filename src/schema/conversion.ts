import { sydneyDate, unixTimestampOfDate } from '../domain/calendar.js';
import type { CurrencyCode } from '../domain/currencies.js';
import { Dec, convertAmount, normalizeDecimal } from '../domain/decimal.js';
import { BadRequestError, ServiceUnavailableError } from '../errors.js';
import { builder } from './builder.js';
import type { Context } from './context.js';
import { CurrencyCodeEnum } from './currency.js';
import { checkHistory } from './plan-rules.js';
import { rateIn } from '../domain/rate-history.js';

const MAX_AMOUNT = new Dec('1e15'); // D14 (docs/decisions.md)

interface Conversion {
  from: CurrencyCode;
  to: CurrencyCode;
  amount: string;
  rate: string;
  result: string;
  date: string;
}

const ConversionRef = builder.objectRef<Conversion>('Conversion').implement({
  description: 'An amount converted at the RBA rates of one day (D15).',
  fields: (t) => ({
    from: t.expose('from', { type: CurrencyCodeEnum }),
    to: t.expose('to', { type: CurrencyCodeEnum }),
    amount: t.expose('amount', { type: 'Decimal' }),
    rate: t.expose('rate', { type: 'Decimal', description: 'Units of `to` per unit of `from`, rounded to 6 dp' }),
    result: t.expose('result', { type: 'Decimal', description: 'amount × unrounded rate, rounded to 4 dp' }),
    date: t.expose('date', { type: 'LocalDate', description: 'The date of the rates used' }),
    timestamp: t.field({ type: 'SafeInt', resolve: (c) => unixTimestampOfDate(c.date) }),
  }),
});

/** The newest day on or before `onOrBefore` (or the newest of all) on which both codes have a rate (D9). */
async function dayForConversion(ctx: Context, from: CurrencyCode, to: CurrencyCode, onOrBefore: string | null) {
  const history = await ctx.rates.history();
  const newest = onOrBefore ?? history.newestDate;
  if (newest === null) throw new ServiceUnavailableError('No rates have been published to this service yet');
  return history.newestWith(
    [from, to].filter((code) => code !== 'AUD'),
    newest,
  );
}

builder.queryField('convert', (t) =>
  t.field({
    type: ConversionRef,
    description: 'Converts `amount` of `from` into `to` at the latest rates, or at the newest on or before `date`.',
    args: {
      from: t.arg({ type: CurrencyCodeEnum, required: true }),
      to: t.arg({ type: CurrencyCodeEnum, required: true }),
      amount: t.arg({ type: 'Decimal', required: true }),
      date: t.arg({ type: 'LocalDate' }),
    },
    // Today's rates are for everyone; a date makes it a historical conversion (D12).
    authScopes: (_root, { date }) => (date ? { datedRates: true } : true),
    resolve: async (_root, { from, to, amount, date }, ctx) => {
      if (from === 'TWI' || to === 'TWI') {
        throw new BadRequestError('TWI is the trade-weighted index, not a currency: it cannot be converted');
      }
      const value = new Dec(amount);
      if (value.lte(0)) throw new BadRequestError('amount must be a number greater than 0');
      if (value.gt(MAX_AMOUNT)) throw new BadRequestError('amount must be at most 1000000000000000 (1e15)');
      if (date) checkHistory(ctx, date, 'a conversion');
      const day = await dayForConversion(ctx, from, to, date ?? null);
      if (!day) {
        const when = date ?? sydneyDate(ctx.services.clock());
        throw new BadRequestError(`No ${from} and ${to} rates are available on or before ${when}`);
      }
      const maths = convertAmount(amount, rateIn(day.rates, from)!, rateIn(day.rates, to)!);
      return { from, to, amount: normalizeDecimal(amount), ...maths, date: day.date };
    },
  }),
);
