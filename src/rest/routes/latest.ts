// GET /latest and /latest/{currency}.
import { z } from 'zod';
import { graphql } from '../../graphql.js';
import * as Schemas from '../openapi/schemas.js';
import { Param } from '../params.js';
import { defineRoute } from '../route.js';
import { ratesBody, SYMBOLS_AND_BASE } from './shared.js';

export const latest = defineRoute(Schemas.RatesResponse)({
  name: 'Latest',
  method: 'GET',
  cacheable: true,
  rates: true,
  path: '/latest',
  auth: 'key',
  query: z.object(SYMBOLS_AND_BASE),
  document: graphql(`
    query Latest($codes: [CurrencyCode!]) {
      latest {
        date
        timestamp
        rates(codes: $codes)
      }
    }
  `),
  variables: ({ query }) => ({ codes: query.symbols ?? null }),
  respond: (data) => ({ body: ratesBody(data.latest) }),
  doc: {
    summary: 'The newest published rates',
    description: 'The newest day the RBA published; a code it did not publish that day is left out.',
    errors: [],
    example: { request: '/latest?symbols=USD,EUR,JPY' },
  },
  cacheControl: 'no-store',
});

export const latestCurrency = defineRoute(Schemas.RatesResponse)({
  name: 'LatestCurrency',
  method: 'GET',
  cacheable: true,
  rates: true,
  path: '/latest/:currency',
  auth: 'key',
  params: z.object({ currency: Param.code }),
  document: graphql(`
    query LatestCurrency($code: CurrencyCode!) {
      latest(having: $code) {
        date
        timestamp
        rates(codes: [$code])
      }
    }
  `),
  variables: ({ params }) => ({ code: params.currency }),
  respond: (data) => ({ body: ratesBody(data.latest) }),
  doc: {
    summary: 'The newest published rate of one currency',
    description: 'The newest day on which that code has a rate, which may be older than /latest for a code the RBA stopped publishing.',
    errors: ['not_found'],
    example: { request: '/latest/USD' },
  },
  cacheControl: 'no-store',
});
