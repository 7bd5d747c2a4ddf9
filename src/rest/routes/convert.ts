// GET /convert: keyed, or free mode without a key.
import { z } from 'zod';
import { graphql } from '../../graphql.js';
import { ANONYMOUS } from '../../schema/context.js';
import { datedRatesRefused, mayReadDatedRates } from '../../schema/viewer-scopes.js';
import { RawJson } from '../../json.js';
import * as Schemas from '../openapi/schemas.js';
import { Param } from '../params.js';
import { defineRoute } from '../route.js';

export const convert = defineRoute(Schemas.ConversionResponse)({
  name: 'Convert',
  method: 'GET',
  cacheable: true,
  rates: true,
  path: '/convert',
  auth: 'optional',
  query: z.object({
    from: Param.code.meta({ description: 'The currency to convert from: a code of /symbols, in any case' }),
    to: Param.code.meta({ description: 'The currency to convert to: a code of /symbols, in any case; not TWI, which is an index' }),
    amount: Param.amount,
    date: Param.date.optional().meta({ description: 'Convert with the rates of this date (YYYY-MM-DD) rather than the newest: only with a key' }),
  }),
  // Who may ask for a dated conversion is the core's rule (the `datedRates` scope). It is asked
  // here too, on the mere presence of `date`, only because D11 puts the key (401) before the
  // parameters (400) and the parameters are read before the operation runs.
  authorize: ({ search, viewer }) => {
    if (search.has('date') && !mayReadDatedRates(viewer ?? ANONYMOUS)) throw datedRatesRefused();
  },
  document: graphql(`
    query Convert($from: CurrencyCode!, $to: CurrencyCode!, $amount: Decimal!, $date: LocalDate) {
      convert(from: $from, to: $to, amount: $amount, date: $date) {
        from
        to
        amount
        rate
        result
        date
        timestamp
      }
    }
  `),
  variables: ({ query }) => ({ from: query.from, to: query.to, amount: query.amount, date: query.date ?? null }),
  respond: ({ convert: c }, req) => ({
    body: {
      success: true,
      free: req.viewer ? undefined : true,
      query: { from: c.from, to: c.to, amount: new RawJson(c.amount) },
      info: { rate: new RawJson(c.rate), timestamp: c.timestamp },
      date: c.date,
      result: new RawJson(c.result),
    },
  }),
  doc: {
    summary: 'Convert an amount between two currencies',
    description:
      "With a key: counted against the monthly quota, and `date` may be any day within the plan's history. Without a key (free mode): the newest rates only, `free: true` in the answer, 3 requests an hour per client; a `date` without a key is 401. The rate is units of `to` per unit of `from` (the AUD rate of `to` divided by that of `from`), from the newest day on or before `date` on which both have a rate; `date` in the answer says which day that was.",
    errors: ['plan_restricted'],
    example: { request: '/convert?from=USD&to=EUR&amount=100&date=2025-06-30' },
  },
  cacheControl: 'no-store',
});
