import { SOURCE_FORMATS } from '../domain/source-format.js';
import { importRates, type ImportOutcome } from '../jobs/import-rates.js';
import { builder } from './builder.js';
import { CurrencyCodeEnum } from './currency.js';

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

const SourceFormatEnum = builder.enumType('SourceFormat', { values: SOURCE_FORMATS });

const ImportRatesInput = builder.inputType('ImportRatesInput', {
  fields: (t) => ({
    source: t.field({ type: 'Text', required: true, description: 'Where the data came from (path or URL), for the record' }),
    format: t.field({ type: SourceFormatEnum, required: true }),
    publicationDate: t.field({ type: 'LocalDate', description: 'The RBA publication date printed in the file' }),
    days: t.field({ type: [RateDayInput], required: true }),
  }),
});

const ImportResultRef = builder.objectRef<ImportOutcome>('ImportResult').implement({
  fields: (t) => ({
    days: t.exposeInt('days', { description: 'Days in the batch from 2018 on' }),
    inserted: t.exposeInt('inserted', { description: 'Days not stored before' }),
    updated: t.exposeInt('updated', { description: 'Stored days that gained or corrected a value' }),
    firstDate: t.expose('firstDate', { type: 'LocalDate' }),
    lastDate: t.expose('lastDate', { type: 'LocalDate' }),
    published: t.field({
      type: 'LocalDate',
      nullable: true,
      description: 'The new newest day when the batch brought one (a publication); null for a backfill or correction',
      resolve: (r) => r.publishedDay?.date ?? null,
    }),
    deliveries: t.exposeInt('deliveries', { description: 'Webhook deliveries recorded for the publication' }),
    alertsFired: t.exposeInt('alertsFired', { description: 'Rate alerts the publication fired, each with its e-mail and deliveries' }),
  }),
});

builder.mutationField('importRates', (t) =>
  t.field({
    type: ImportResultRef,
    description:
      'Stores parsed RBA days in one transaction: new values are inserted, changed ones replace the old and are recorded, identical ones change nothing. A day newer than any stored is a publication: its webhook deliveries and the rate alerts it fires are recorded in the same transaction.',
    args: { input: t.arg({ type: ImportRatesInput, required: true }) },
    authScopes: { operator: true },
    resolve: async (_root, { input }, ctx) => {
      return importRates(ctx.services, { ...input, publicationDate: input.publicationDate ?? null });
    },
  }),
);
