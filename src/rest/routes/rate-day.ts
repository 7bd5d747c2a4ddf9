// GET /{date} and /{date}/{currency}.
import { z } from 'zod';
import { graphql } from '../../graphql.js';
import * as Schemas from '../openapi/schemas.js';
import { Param } from '../params.js';
import { defineRoute } from '../route.js';
import { ratesBody, SYMBOLS_AND_BASE } from './shared.js';

const DATE_SEGMENT = /^[0-9-]+$/; // D14: digits and dashes are a date attempt; anything else is an unknown path

export const rateDay = defineRoute(Schemas.RatesResponse)({
  name: 'RateDay',
  method: 'GET',
  cacheable: true,
  rates: true,
  path: '/:date',
  paramPatterns: { date: DATE_SEGMENT },
  auth: 'key',
  query: z.object({ ...SYMBOLS_AND_BASE, fallback: Param.fallback.optional() }),
  params: z.object({ date: Param.date }),
  document: graphql(`
    query RateDay($date: LocalDate!, $codes: [CurrencyCode!], $fallback: RateFallback) {
      rateDay(date: $date, having: $codes, fallback: $fallback) {
        date
        timestamp
        rates(codes: $codes)
      }
    }
  `),
  variables: ({ params, query }) => ({ date: params.date, codes: query.symbols ?? null, fallback: query.fallback ?? null }),
  respond: (data, { params, query }) => ({ body: ratesBody(data.rateDay, query.fallback && params.date) }),
  doc: {
    summary: 'The rates of one date',
    description:
      'Exactly that date: a weekend, a holiday or a day the RBA did not publish is 404, unless `fallback` asks for the nearest rate day before it, after it, or whichever is nearer (`nearest`, the earlier on a tie: the ATO\'s "exchange rate for the next closest day"). With `symbols`, only those codes, and a day on which none of them was published counts as a day without rates. The plan\'s history window applies to the date asked for and to the day used.',
    errors: ['plan_restricted', 'not_found'],
    example: { request: '/2025-06-28?symbols=USD,EUR,GBP,JPY&fallback=nearest' },
  },
  cacheControl: 'no-store',
});

export const rateDayCurrency = defineRoute(Schemas.RatesResponse)({
  name: 'RateDayCurrency',
  method: 'GET',
  cacheable: true,
  rates: true,
  path: '/:date/:currency',
  paramPatterns: { date: DATE_SEGMENT },
  auth: 'key',
  query: z.object({ fallback: Param.fallback.optional() }),
  params: z.object({ date: Param.date, currency: Param.code }),
  document: graphql(`
    query RateDayCurrency($date: LocalDate!, $code: CurrencyCode!, $fallback: RateFallback) {
      rateDay(date: $date, having: [$code], fallback: $fallback) {
        date
        timestamp
        rates(codes: [$code])
      }
    }
  `),
  variables: ({ params, query }) => ({ date: params.date, code: params.currency, fallback: query.fallback ?? null }),
  respond: (data, { params, query }) => ({ body: ratesBody(data.rateDay, query.fallback && params.date) }),
  doc: {
    summary: 'The rate of one currency on one date',
    description:
      'Exactly that date, and 404 when the RBA published no rate for that code on it, unless `fallback` asks for the nearest rate day of that code before it, after it, or whichever is nearer (`nearest`, the earlier on a tie).',
    errors: ['plan_restricted', 'not_found'],
    example: { request: '/2024-12-25/USD?fallback=previous' },
  },
  cacheControl: 'no-store',
});
