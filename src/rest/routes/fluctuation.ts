// GET /fluctuation.
import { graphql } from '../../graphql.js';
import * as Schemas from '../openapi/schemas.js';
import { defineRoute } from '../route.js';
import { rawNumbers, DATE_RANGE } from './shared.js';

export const fluctuation = defineRoute(Schemas.FluctuationResponse)({
  name: 'Fluctuation',
  method: 'GET',
  cacheable: true,
  rates: true,
  path: '/fluctuation',
  auth: 'key',
  query: DATE_RANGE,
  document: graphql(`
    query Fluctuation($start: LocalDate!, $end: LocalDate!, $codes: [CurrencyCode!]) {
      fluctuation(startDate: $start, endDate: $end, codes: $codes) {
        code
        start_rate: startRate
        end_rate: endRate
        change
        change_pct: changePct
        min
        max
        mean
        days
      }
    }
  `),
  variables: ({ query }) => ({ start: query.start_date, end: query.end_date, codes: query.symbols ?? null }),
  respond: (data, { query }) => ({
    body: {
      success: true,
      fluctuation: true,
      start_date: query.start_date,
      end_date: query.end_date,
      base: 'AUD',
      rates: Object.fromEntries(data.fluctuation.map(({ code, days, ...figures }) => [code, { ...rawNumbers(figures), days }])),
    },
  }),
  doc: {
    summary: 'How each currency moved over a date range',
    description:
      'Per code, over the days of the range on which it has a rate: the rate on the first and last of them, the exact change, the change in percent and the mean (both rounded half away from zero to 6 places), the lowest and highest rate and the number of days. The range rules, plan limits and errors of /timeseries apply; a range without any rate day is 404, a code without a rate in it is left out.',
    errors: ['plan_restricted', 'not_found'],
    example: { request: '/fluctuation?start_date=2024-07-01&end_date=2025-06-30&symbols=USD,EUR' },
  },
  cacheControl: 'no-store',
});
