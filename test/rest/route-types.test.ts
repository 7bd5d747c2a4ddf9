// A route's variables and mapper are checked against its document when the project is type-checked
// (`npm run typecheck`): each `@ts-expect-error` below is a route that disagrees with its document,
// and the check fails if any of them stops being an error.
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { CurrencyCode } from '../../src/domain/currencies.js';
import { graphql, type ResultOf, type VariablesOf } from '../../src/graphql.js';
import { checkDocuments } from '../../src/schema/executor.js';
import { parseCode } from '../../src/rest/params.js';
import { z } from 'zod';
import { defineRoute } from '../../src/rest/route.js';
import { rawNumbers } from '../../src/rest/routes/shared.js';
import { schema } from '../../src/schema/index.js';

const RATE_DAY = graphql('query RateDay($date: LocalDate!, $code: CurrencyCode!) { rateDay(date: $date) { date timestamp rates(codes: [$code]) } }');
const ROUTE = { name: 'RateDay', method: 'GET', path: '/:date', auth: 'key', cacheControl: 'no-store' } as const;

describe('route types', () => {
  it('come from the document: its variables and its result, custom scalars and enums included', () => {
    expectTypeOf<VariablesOf<typeof RATE_DAY>>().toEqualTypeOf<{ date: string; code: CurrencyCode }>();
    expectTypeOf<ResultOf<typeof RATE_DAY>>().toEqualTypeOf<{ rateDay: { date: string; timestamp: number; rates: Record<string, string> } }>();
  });

  it('refuse a mapper or variables that disagree with the document, and an answer that disagrees with its schema', () => {
    const agreeing = defineRoute(z.string())({
      ...ROUTE,
      document: RATE_DAY,
      variables: (req) => ({ date: req.params.date!, code: parseCode('USD', 'code') }),
      respond: (data) => ({ body: data.rateDay.date }),
    });
    defineRoute(z.string())({
      ...ROUTE,
      document: RATE_DAY,
      variables: (req) => ({ date: req.params.date!, code: parseCode('USD', 'code') }),
      // @ts-expect-error the document asks for no `base` field
      respond: (data) => ({ body: data.rateDay.base }),
    });
    defineRoute(z.null())({
      ...ROUTE,
      document: RATE_DAY,
      // @ts-expect-error `code` is missing
      variables: (req) => ({ date: req.params.date! }),
      respond: () => ({ body: null }),
    });
    defineRoute(z.null())({
      ...ROUTE,
      document: RATE_DAY,
      // @ts-expect-error `symbols` is no variable of the document
      variables: (req) => ({ date: req.params.date!, code: parseCode('USD', 'code'), symbols: 'USD' }),
      respond: () => ({ body: null }),
    });
    defineRoute(z.null())({
      ...ROUTE,
      document: RATE_DAY,
      // @ts-expect-error `code` is a CurrencyCode, not any string
      variables: (req) => ({ date: req.params.date!, code: 'usd' }),
      respond: () => ({ body: null }),
    });
    defineRoute(z.strictObject({ success: z.literal(true), date: z.string() }))({
      ...ROUTE,
      document: RATE_DAY,
      variables: (req) => ({ date: req.params.date!, code: parseCode('USD', 'code') }),
      // @ts-expect-error the answer is not what the response schema documents: `date` is a string
      respond: (data) => ({ body: { success: true, date: data.rateDay.timestamp } }),
    });
    defineRoute(z.strictObject({ success: z.literal(true), rates: z.record(z.string(), z.number()) }))({
      ...ROUTE,
      document: RATE_DAY,
      variables: (req) => ({ date: req.params.date!, code: parseCode('USD', 'code') }),
      // exact numbers written as raw JSON text stand for the numbers the schema documents
      respond: (data) => ({ body: { success: true, rates: rawNumbers(data.rateDay.rates) } }),
    });
    // The typed document is a DocumentNode that the executor checks and runs as it is.
    expect(() => checkDocuments(schema, { [agreeing.name]: agreeing.document })).not.toThrow();
  });
});
