import { storeDays, type StoredDay } from '../db/rates.js';
import { sydneyDate } from '../domain/calendar.js';
import { BadRequestError } from '../errors.js';
import { builder } from './builder.js';
import { requireOperator } from './context.js';
import { CurrencyCodeEnum } from './currency.js';
import { FIRST_DATE } from './rate-day.js';

const RateInput = builder.inputType('RateInput', {
  fields: (t) => ({
    code: t.field({ type: CurrencyCodeEnum, required: true }),
    value: t.field({ type: 'Decimal', required: true }),
  }),
});

const RateDayInput = builder.inputType('RateDayInput', {
  fields: (t) => ({
    date: t.field({ type: 'LocalDate', required: true }),
    rates: t.field({ type: [RateInput], required: true }),
  }),
});

const SourceFormatEnum = builder.enumType('SourceFormat', { values: ['csv', 'xls', 'rss'] as const });

const ImportRatesInput = builder.inputType('ImportRatesInput', {
  fields: (t) => ({
    source: t.string({ required: true, description: 'Where the data came from (path or URL), for the record' }),
    format: t.field({ type: SourceFormatEnum, required: true }),
    publicationDate: t.field({ type: 'LocalDate', description: 'The RBA publication date printed in the file' }),
    days: t.field({ type: [RateDayInput], required: true }),
  }),
});

interface ImportResult {
  days: number;
  inserted: number;
  updated: number;
  firstDate: string;
  lastDate: string;
}

const ImportResultRef = builder.objectRef<ImportResult>('ImportResult').implement({
  fields: (t) => ({
    days: t.exposeInt('days', { description: 'Days in the batch from 2018 on' }),
    inserted: t.exposeInt('inserted', { description: 'Days not stored before' }),
    updated: t.exposeInt('updated', { description: 'Stored days that gained or corrected a value' }),
    firstDate: t.expose('firstDate', { type: 'LocalDate' }),
    lastDate: t.expose('lastDate', { type: 'LocalDate' }),
  }),
});

/** Checks a batch as a whole before anything is stored: one bad day refuses all of it. */
function validDays(input: { days: readonly { date: string; rates: readonly { code: string; value: string }[] }[] }, today: string): StoredDay[] {
  const days: StoredDay[] = [];
  let previous = '';
  for (const day of input.days) {
    if (day.date <= previous) throw new BadRequestError(`Days must be in ascending date order without repeats (at ${day.date})`);
    previous = day.date;
    if (day.date > today) throw new BadRequestError(`${day.date} is in the future`);
    const rates: Record<string, string> = {};
    for (const { code, value } of day.rates) {
      if (code === 'AUD') throw new BadRequestError(`${day.date}: AUD is the base currency and has no rate of its own`);
      if (rates[code] !== undefined) throw new BadRequestError(`${day.date}: ${code} appears twice`);
      rates[code] = value;
    }
    // History starts in 2018 (SPEC 1); older rows in a workbook are skipped, not refused.
    if (day.date >= FIRST_DATE && day.rates.length > 0) days.push({ date: day.date, rates });
  }
  if (days.length === 0) throw new BadRequestError('The batch holds no rates dated 2018-01-01 or later');
  return days;
}

builder.mutationField('importRates', (t) =>
  t.field({
    type: ImportResultRef,
    description:
      'Stores parsed RBA days in one transaction: new values are inserted, changed ones replace the old and are recorded, identical ones change nothing.',
    args: { input: t.arg({ type: ImportRatesInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      requireOperator(ctx);
      const now = ctx.services.clock();
      const days = validDays(input, sydneyDate(now));
      const summary = await ctx.services.db.transaction().execute((trx) =>
        storeDays(trx, { storedAt: now, source: input.source, format: input.format, publicationDate: input.publicationDate ?? null, days }),
      );
      if (summary.publicationId !== null) await ctx.services.changes.publish('rates_changed');
      return summary;
    },
  }),
);
