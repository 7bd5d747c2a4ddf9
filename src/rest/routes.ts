// The public REST contract as data: each endpoint is one GraphQL operation, the zod schemas that read
// its query, path and body (which also describe them in the OpenAPI document), a mapper from what
// they read to the operation's variables and a mapper from its result to the JSON of docs/api.md.
// How to add a parameter or a route: docs/request-contract.md.
import type { DocumentNode } from 'graphql';
import { z, type ZodType } from 'zod';
import type { RateValues } from '../db/rates.js';
import { CURRENCIES, QUOTE_NOTE, QUOTED_CODES } from '../domain/currencies.js';
import { graphql, type TadaDocumentNode } from '../graphql.js';
import { ANONYMOUS, type ApiKeyViewer } from '../schema/context.js';
import { datedRatesRefused, mayReadDatedRates } from '../schema/viewer-scopes.js';
import { RawJson, ratesJson, seriesJson, type Json } from '../json.js';
import { Field } from './body.js';
import type { RefusalCode } from '../http/error-status.js';
import * as Schemas from './openapi/schemas.js';
import { CsvBody, csvRow } from './csv.js';
import { Param, type NamedValues } from './params.js';
import { AVERAGES, averagesCsv, averagesJson } from './averages.js';

/** The path's parameters of a route without a `params` schema: the segments as the router decoded them. */
export type PathSegments = z.ZodObject<Record<string, ZodType<string>>>;

/** A request as its route's mappers see it: the query, the path and the body read by the route's schemas. */
export interface RouteRequest<Query = Record<string, unknown>, Params = Readonly<Record<string, string>>, Body = Record<string, unknown>> {
  query: Query;
  params: Params;
  /** the fields of a route that takes a body, else an empty object */
  body: Body;
  viewer: ApiKeyViewer | null;
  documentationUrl: string;
}

/**
 * One endpoint: its operation (`document`), typed from schema.graphql (src/graphql.ts) by
 * `defineRoute`, so that `variables` must return exactly the document's variables and `respond`
 * reads exactly its result, checked at compile time; what `variables` and `respond` read of the
 * request is typed from the route's zod schemas. The facade holds every route as a plain `Route`
 * and runs only these documents, compiled once at start-up (steps/operation.ts `prepareDocuments`):
 * nothing from a request becomes a document.
 */
export interface Route<
  Result = unknown,
  Variables = Record<string, unknown>,
  Query extends NamedValues = NamedValues,
  Params extends NamedValues = PathSegments,
  Body extends NamedValues = NamedValues,
> {
  /** the operation's name; also how usage and logs name the endpoint */
  name: string;
  /** HEAD is answered by the GET route */
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** segments; `:name` matches one segment, optionally constrained by `paramPatterns` */
  path: string;
  paramPatterns?: Record<string, RegExp>;
  /**
   * 'key': a data endpoint that needs a key (metered); 'optional': free mode without one
   * (/convert); 'account': manages the account's own resources (a key, later also a dashboard
   * session; a missing one is invalid_api_key, D12 in docs/decisions.md; not metered)
   */
  auth: 'none' | 'key' | 'optional' | 'account';
  /** the query parameters the route takes (none without it), in the order they are checked and documented */
  query?: Query;
  /** the path's `:name` segments */
  params?: Params;
  /** the fields of a JSON body of at most 16 KiB, read before the variables are mapped; without it the route reads no body */
  body?: Body;
  /**
   * A refusal of the viewer (401) that depends on what the query asks for: run before the
   * parameters are read, as D11 orders the checks.
   */
  authorize?(request: { search: URLSearchParams; viewer: ApiKeyViewer | null }): void;
  /** the answer depends only on the query, the viewer's plan, the stored rates and the time: identical requests may share it briefly */
  cacheable?: boolean;
  /** answers with rates: a stale answer says so (D23 in docs/decisions.md, src/rest/steps/freshness.ts) */
  rates?: boolean;
  document: DocumentNode;
  variables(req: RouteRequest<z.output<Query>, z.output<Params>, z.output<Body>>): Variables;
  respond(data: Result, req: RouteRequest<z.output<Query>, z.output<Params>, z.output<Body>>): { body: Json; status?: number };
  /** the answer as CSV, for a client whose Accept prefers text/csv (src/rest/csv.ts) */
  csv?(data: Result, req: RouteRequest<z.output<Query>, z.output<Params>, z.output<Body>>): CsvBody;
  cacheControl: string;
  /** what the OpenAPI document says of the route beyond its schemas (src/rest/openapi/document.ts) */
  doc?: RouteDoc;
}

export interface RouteDoc {
  summary: string;
  description?: string;
  /** the success body */
  response: ZodType;
  /**
   * the error types the route answers itself; those of its `auth` (401, 429) and those of every
   * endpoint (400 bad_request, 403 https_required, 503) are added by the document
   */
  errors: readonly RefusalCode[];
  /** statuses other than 200 that answer with a body of their own (not the error envelope) */
  otherResponses?: Readonly<Record<number, ZodType>>;
  example: RouteExample;
}

/**
 * A request and the service's answer to it with the fixture data of test/fixtures/rba/, checked
 * against the live answer by test/rest/openapi.test.ts. The document shows it as the 200's example,
 * and its path segments, query parameters and body as the parameters' and the body's examples, so
 * that the code samples ask what the example answers.
 */
export interface RouteExample {
  /** the path and query string, as sent */
  request: string;
  /** the JSON body sent */
  body?: Json;
  response: unknown;
  /** the answer with `Accept: text/csv` */
  csv?: string;
  /** the answer's fields that differ from one request or service to another (ids, secrets, times), as dotted paths */
  varies?: readonly string[];
  /**
   * The test that sends such requests instead, when they need what the fixture has not got (a
   * delivery of a publication, and a receiver): its answers are checked against the document's schema
   */
  replayedBy?: string;
}

/** Refuses a `variables` that returns a variable its document does not declare. */
type OnlyDeclared<Returned, Declared> = [Exclude<keyof Returned, keyof Declared>] extends [never]
  ? unknown
  : { variables: 'returns a variable that the document does not declare' };

/**
 * Checks a route against its document (the types come from the document alone) and its mappers
 * against its schemas, then hands it on as a plain `Route`: a method's parameters are bivariant, so
 * the typed route is one. (An enum value written as a literal in `variables` needs `as const`:
 * TypeScript widens it while it infers.)
 */
export const defineRoute = <
  Result,
  Variables extends Record<string, unknown>,
  Returned extends Variables,
  Query extends NamedValues = NamedValues,
  Params extends NamedValues = PathSegments,
  Body extends NamedValues = NamedValues,
>(
  route: Route<NoInfer<Result>, Returned, Query, Params, Body> & { document: TadaDocumentNode<Result, Variables> } & OnlyDeclared<Returned, Variables>,
): Route => route as Route;

/** The day of /latest and /{date}, whichever field of the schema answered it. */
interface DayData {
  date: string;
  timestamp: number;
  rates: RateValues;
}

/** The body of /latest and /{date}; with `fallback` (D38), `requested_date` echoes the date asked for. */
const ratesBody = (day: DayData, requestedDate?: string): Json => ({
  success: true,
  timestamp: day.timestamp,
  base: 'AUD',
  date: day.date,
  requested_date: requestedDate,
  rates: ratesJson(day.rates),
});

/** Exact decimal strings written as JSON numbers. */
const rawNumbers = (decimals: Record<string, string>): Record<string, RawJson> =>
  Object.fromEntries(Object.entries(decimals).map(([name, value]) => [name, new RawJson(value)]));

/** `symbols` and `base` of /latest, /timeseries and /fluctuation. */
const SYMBOLS_AND_BASE = {
  symbols: Param.codes.optional(),
  base: Param.base.optional(),
};
/** The query of /timeseries and /fluctuation: a date range, `symbols` and `base`. */
const DATE_RANGE = z.object({
  start_date: Param.date.meta({ description: 'The first day of the range (YYYY-MM-DD)' }),
  end_date: Param.date.meta({ description: 'The last day of the range (YYYY-MM-DD), not before start_date' }),
  ...SYMBOLS_AND_BASE,
});
/**
 * The query of /averages (D37): exactly one of `period` or `start_date`+`end_date`, then `symbols`,
 * `base` and `interval`. Syntax only: the range's length and direction are the core's rules.
 */
const AVERAGES_QUERY = z
  .object({
    period: Param.period.optional(),
    start_date: Param.date.optional().meta({ description: 'The first day of a custom range (YYYY-MM-DD), with end_date instead of period' }),
    end_date: Param.date.optional().meta({ description: 'The last day of a custom range (YYYY-MM-DD), at most 365 days after start_date' }),
    ...SYMBOLS_AND_BASE,
    interval: Param.interval.optional(),
  })
  .check((context) => {
    const { period, start_date, end_date } = context.value;
    const custom = start_date !== undefined || end_date !== undefined;
    if ((period === undefined) === !custom) {
      context.issues.push({
        code: 'custom',
        input: context.value,
        message: 'Give either period (such as FY2025, 2024, 2025-H1, 2025-Q3 or 2025-06) or start_date and end_date, not both',
      });
    } else if (custom && (start_date === undefined || end_date === undefined)) {
      context.issues.push({
        code: 'custom',
        input: context.value,
        message: `Missing required parameter '${start_date === undefined ? 'start_date' : 'end_date'}'`,
      });
    }
  });
const SUBSCRIPTION_ID = z.object({ id: Param.id });

const SUBSCRIPTIONS = '/api/webhook-subscriptions';
/** The list fields of docs/api.md §2.11, in its order. */
const SUBSCRIPTION_FIELDS = 'id url currencies description isActive failureCount lastSuccessAt createdAt';
const DELIVERY_FIELDS = 'id event date state attempts { at status error durationMs }';

const ALERTS = '/api/alerts';
const ALERT_FIELDS = 'id currency condition value channels description isActive lastTriggeredAt triggerCount createdAt';
const ALERT_PARAMS = z.object({ id: Param.alertId });
const EXAMPLE_ALERT_ID = '9c4e1b7a2d3f4e5a8b6c0d1e2f3a4b5c';
const EXAMPLE_ALERT = {
  id: EXAMPLE_ALERT_ID,
  currency: 'USD',
  condition: 'above',
  value: 0.69,
  channels: ['email', 'webhook'],
  description: 'invoice USD when the dollar is strong',
  isActive: true,
  lastTriggeredAt: null,
  triggerCount: 0,
  createdAt: '2026-05-12T03:00:00.000Z',
};
/** An alert as the API writes it: its value an exact JSON number. */
const alertJson = (alert: { value: string } & Record<string, Json>) => ({ ...alert, value: new RawJson(alert.value) });

const DATE_SEGMENT = /^[0-9-]+$/; // D14: digits and dashes are a date attempt; anything else is an unknown path

/** The subscription of the examples (in a request's path, the test puts the id of one it created in its place). */
const EXAMPLE_ID = '5f0c7e1a9b3d4c2e8a6f1b0d3e7c9a24';
const EXAMPLE_SUBSCRIPTION = {
  id: EXAMPLE_ID,
  url: 'https://hooks.example.com/rates',
  currencies: ['USD', 'EUR'],
  description: 'treasury',
  isActive: true,
  failureCount: 0,
  lastSuccessAt: null,
  createdAt: '2026-05-12T03:00:00.000Z',
};

export const routes: readonly Route[] = [
  defineRoute({
    name: 'Root',
    method: 'GET',
    cacheable: true,
    path: '/',
    auth: 'none',
    document: graphql('query Root { version }'),
    variables: () => ({}),
    respond: (data, req) => ({
      body: {
        success: true,
        message: 'Reserve Bank of Australia exchange rates (table F11.1, 4 pm Sydney), quoted against AUD',
        documentation: req.documentationUrl,
        version: data.version,
      },
    }),
    doc: {
      summary: 'Service information and the link to this documentation',
      response: Schemas.RootResponse,
      errors: [],
      example: {
        request: '/',
        response: {
          success: true,
          message: 'Reserve Bank of Australia exchange rates (table F11.1, 4 pm Sydney), quoted against AUD',
          documentation: 'https://rates.example/docs',
          version: '0.1.0',
        },
        varies: ['documentation', 'version'],
      },
    },
    cacheControl: 'no-cache',
  }),
  defineRoute({
    name: 'Status',
    method: 'GET',
    path: '/status',
    auth: 'none',
    document: graphql('query Status { serviceStatus { state servable lastUpdate stale nextUpdateExpected } }'),
    variables: () => ({}),
    respond: ({ serviceStatus: s }) => ({
      status: s.servable ? 200 : 503,
      body: {
        status: s.state,
        last_update: s.lastUpdate ?? 'unknown',
        stale: s.stale,
        next_update_expected: s.nextUpdateExpected,
      },
    }),
    doc: {
      summary: 'Whether the data is current',
      description:
        'Never needs a key and is never metered. `stale` is true when the newest stored rates are older than the last publication the RBA should have made (business days, 4 pm Sydney, with an hour of grace). A 503 (`degraded` without servable data) has the same shape as the 200.',
      response: Schemas.StatusResponse,
      errors: [],
      otherResponses: { 503: Schemas.StatusResponse },
      example: {
        request: '/status',
        response: { status: 'operational', last_update: '2026-05-12T03:00:00.000Z', stale: false, next_update_expected: '2026-05-12T06:00:00.000Z' },
      },
    },
    cacheControl: 'no-cache',
  }),
  defineRoute({
    name: 'Symbols',
    method: 'GET',
    cacheable: true,
    path: '/symbols',
    auth: 'none',
    document: graphql('query Symbols { currencies { code name symbol country } }'),
    variables: () => ({}),
    respond: ({ currencies }) => ({
      body: {
        success: true,
        symbols: Object.fromEntries(currencies.map(({ code, ...info }) => [code, info])),
        count: currencies.length,
        base: 'AUD',
        note: QUOTE_NOTE,
      },
    }),
    doc: {
      summary: 'The supported currency codes',
      response: Schemas.SymbolsResponse,
      errors: [],
      example: {
        request: '/symbols',
        response: {
          success: true,
          symbols: Object.fromEntries(CURRENCIES.map(({ code, name, symbol, country }) => [code, { name, symbol, country }])),
          count: CURRENCIES.length,
          base: 'AUD',
          note: 'All rates are quoted against the Australian dollar (AUD): each value is the units of foreign currency that 1 AUD buys, as published by the Reserve Bank of Australia (table F11.1, 4 pm Sydney). TWI is an index, not a currency.',
        },
      },
    },
    cacheControl: 'public, max-age=86400',
  }),
  defineRoute({
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
      response: Schemas.ConversionResponse,
      errors: ['plan_restricted'],
      example: {
        request: '/convert?from=USD&to=EUR&amount=100&date=2023-01-03',
        response: {
          success: true,
          query: { from: 'USD', to: 'EUR', amount: 100 },
          info: { rate: 0.937317, timestamp: 1672704000 },
          date: '2023-01-03',
          result: 93.7317,
        },
      },
    },
    cacheControl: 'no-store',
  }),
  defineRoute({
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
      response: Schemas.RatesResponse,
      errors: [],
      example: {
        request: '/latest?symbols=USD,EUR,JPY',
        response: { success: true, timestamp: 1778457600, base: 'AUD', date: '2026-05-11', rates: { USD: 0.7013, EUR: 0.5964, JPY: 109.02 } },
      },
    },
    cacheControl: 'no-store',
  }),
  defineRoute({
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
      response: Schemas.RatesResponse,
      errors: ['not_found'],
      example: { request: '/latest/USD', response: { success: true, timestamp: 1778457600, base: 'AUD', date: '2026-05-11', rates: { USD: 0.7013 } } },
    },
    cacheControl: 'no-store',
  }),
  defineRoute({
    name: 'TimeSeries',
    method: 'GET',
    cacheable: true,
    rates: true,
    path: '/timeseries',
    auth: 'key',
    query: DATE_RANGE,
    document: graphql(`
      query TimeSeries($start: LocalDate!, $end: LocalDate!, $codes: [CurrencyCode!]) {
        timeSeries(startDate: $start, endDate: $end, having: $codes) {
          rates(codes: $codes)
        }
      }
    `),
    variables: ({ query }) => ({ start: query.start_date, end: query.end_date, codes: query.symbols ?? null }),
    respond: (data, { query }) => ({
      body: {
        success: true,
        timeseries: true,
        start_date: query.start_date,
        end_date: query.end_date,
        base: 'AUD',
        rates: seriesJson(data.timeSeries.rates),
      },
    }),
    // Columns in the order of `symbols`, else every code in /latest's order; a blank where a code was not published.
    csv: ({ timeSeries: { rates } }, { query }) => {
      const columns = query.symbols ?? QUOTED_CODES;
      return new CsvBody(`aud-rates_${query.start_date}_${query.end_date}.csv`, function* () {
        yield csvRow(['date', ...columns]);
        for (const [date, day] of rates.entries()) yield csvRow([date, ...columns.map((code) => day[code] ?? '')]);
      });
    },
    doc: {
      summary: 'The rates of every day with data in a date range',
      description:
        "Only days with data appear: weekends and holidays are left out, and a range without any rate day is 404. The range may be at most the plan's time-series range (Starter 7 days, Professional 90, Business and Enterprise 365) and must lie within its history. With `Accept: text/csv` the answer is a CSV file (`text/csv; charset=utf-8`, LF line ends, no BOM): a header row `date,USD,EUR,…` in the order of `symbols` (every code in /latest's order otherwise), one row per rate day, ascending, with the digits of the JSON and an empty cell where a code was not published; errors stay JSON.",
      response: Schemas.TimeSeriesResponse,
      errors: ['plan_restricted', 'not_found'],
      example: {
        request: '/timeseries?start_date=2023-01-01&end_date=2023-01-31&symbols=USD,EUR',
        response: {
          success: true,
          timeseries: true,
          start_date: '2023-01-01',
          end_date: '2023-01-31',
          base: 'AUD',
          rates: { '2023-01-03': { USD: 0.6828, EUR: 0.64 }, '2023-01-04': { USD: 0.6811, EUR: 0.6437 } },
        },
        csv: 'date,USD,EUR\n2023-01-03,0.6828,0.64\n2023-01-04,0.6811,0.6437\n',
      },
    },
    cacheControl: 'no-store',
  }),
  defineRoute({
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
      response: Schemas.FluctuationResponse,
      errors: ['plan_restricted', 'not_found'],
      example: {
        request: '/fluctuation?start_date=2023-01-01&end_date=2023-01-31&symbols=USD,EUR',
        response: {
          success: true,
          fluctuation: true,
          start_date: '2023-01-01',
          end_date: '2023-01-31',
          base: 'AUD',
          rates: {
            USD: { start_rate: 0.6828, end_rate: 0.6811, change: -0.0017, change_pct: -0.248975, min: 0.6811, max: 0.6828, mean: 0.68195, days: 2 },
            EUR: { start_rate: 0.64, end_rate: 0.6437, change: 0.0037, change_pct: 0.578125, min: 0.64, max: 0.6437, mean: 0.64185, days: 2 },
          },
        },
      },
    },
    cacheControl: 'no-store',
  }),
  defineRoute({
    name: 'RateDay',
    method: 'GET',
    cacheable: true,
    rates: true,
    path: '/:date',
    paramPatterns: { date: DATE_SEGMENT },
    auth: 'key',
    query: z.object({ fallback: Param.fallback.optional() }),
    params: z.object({ date: Param.date }),
    document: graphql(`
      query RateDay($date: LocalDate!, $fallback: RateFallback) {
        rateDay(date: $date, fallback: $fallback) {
          date
          timestamp
          rates
        }
      }
    `),
    variables: ({ params, query }) => ({ date: params.date, fallback: query.fallback ?? null }),
    respond: (data, { params, query }) => ({ body: ratesBody(data.rateDay, query.fallback && params.date) }),
    doc: {
      summary: 'The rates of one date',
      description:
        "Exactly that date: a weekend, a holiday or a day the RBA did not publish is 404, unless `fallback` asks for the nearest rate day before or after it. The plan's history window applies to the date asked for and to the day used.",
      response: Schemas.RatesResponse,
      errors: ['plan_restricted', 'not_found'],
      example: {
        request: '/2023-01-03',
        response: {
          success: true,
          timestamp: 1672704000,
          base: 'AUD',
          date: '2023-01-03',
          rates: {
            USD: 0.6828,
            EUR: 0.64,
            GBP: 0.5656,
            JPY: 88.48,
            CNY: 4.6994,
            KRW: 867.16,
            INR: 56.51,
            SGD: 0.9134,
            NZD: 1.076,
            THB: 23.47,
            MYR: 2.9975,
            IDR: 10635,
            VND: 16039,
            HKD: 5.3316,
            PHP: 38.07,
            CHF: 0.631,
            TWD: 20.97,
            TWI: 61.4,
            SDR: 0.5131,
          },
        },
      },
    },
    cacheControl: 'no-store',
  }),
  defineRoute({
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
        rateDay(date: $date, having: $code, fallback: $fallback) {
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
        'Exactly that date, and 404 when the RBA published no rate for that code on it, unless `fallback` asks for the nearest rate day of that code before or after it.',
      response: Schemas.RatesResponse,
      errors: ['plan_restricted', 'not_found'],
      example: { request: '/2023-01-03/USD', response: { success: true, timestamp: 1672704000, base: 'AUD', date: '2023-01-03', rates: { USD: 0.6828 } } },
    },
    cacheControl: 'no-store',
  }),
  // Webhook subscriptions (docs/api.md §4.2) on the same listener.
  defineRoute({
    name: 'CreateWebhookSubscription',
    method: 'POST',
    path: SUBSCRIPTIONS,
    auth: 'account',
    body: z.object({
      url: Field.text.meta({ format: 'uri', maxLength: 2048, description: 'Where to deliver: an HTTPS URL on a public host, at most 2048 characters' }),
      currencies: Field.codes.optional().meta({ description: 'The currency codes to deliver (codes of /symbols); left out: every currency' }),
      description: Field.text.optional().meta({ description: 'A note of your own, shown when listing' }),
    }),
    document: graphql(`
      mutation CreateWebhookSubscription($input: CreateWebhookSubscriptionInput!) {
        createWebhookSubscription(input: $input) {
          signingSecret
          subscription {
            id
            url
            currencies
            description
          }
        }
      }
    `),
    variables: ({ body }) => ({ input: body }),
    respond: ({ createWebhookSubscription: created }) => ({
      body: {
        success: true,
        signingSecret: created.signingSecret,
        warning: 'Store this signing secret now: it is not shown again. Use it to verify the X-ExchangeRates-Signature of each delivery.',
        subscription: created.subscription,
      },
    }),
    doc: {
      summary: 'Subscribe an HTTPS URL to new publications',
      description:
        'Professional, Business and Enterprise plans (3, 10 and 50 subscriptions). The signing secret is in this response only. Deliveries and their signature: see Webhooks above.',
      response: Schemas.CreateSubscriptionResponse,
      errors: ['webhooks_not_available', 'subscription_limit_reached'],
      example: {
        request: SUBSCRIPTIONS,
        body: { url: 'https://hooks.example.com/rates', currencies: ['USD', 'EUR'], description: 'treasury' },
        response: {
          success: true,
          signingSecret: 'whsec_Qz__81N2PAQ6CuXVwx4IXXK___ZbgmWehApKSuDLa4Q',
          warning: 'Store this signing secret now: it is not shown again. Use it to verify the X-ExchangeRates-Signature of each delivery.',
          subscription: { id: EXAMPLE_ID, url: 'https://hooks.example.com/rates', currencies: ['USD', 'EUR'], description: 'treasury' },
        },
        varies: ['signingSecret', 'subscription.id'],
      },
    },
    cacheControl: 'no-store',
  }),
  defineRoute({
    name: 'WebhookSubscriptions',
    method: 'GET',
    path: SUBSCRIPTIONS,
    auth: 'account',
    document: graphql(`query WebhookSubscriptions {
      webhookSubscriptions { subscriptions { ${SUBSCRIPTION_FIELDS} } limit }
    }`),
    variables: () => ({}),
    respond: ({ webhookSubscriptions: list }) => ({
      body: { success: true, subscriptions: list.subscriptions, limit: list.limit },
    }),
    doc: {
      summary: "The account's webhook subscriptions",
      response: Schemas.SubscriptionListResponse,
      errors: [],
      example: {
        request: SUBSCRIPTIONS,
        response: { success: true, subscriptions: [EXAMPLE_SUBSCRIPTION], limit: 10 },
        varies: ['subscriptions.0.id', 'subscriptions.0.createdAt'],
      },
    },
    cacheControl: 'no-store',
  }),
  defineRoute({
    name: 'DeleteWebhookSubscription',
    method: 'DELETE',
    path: `${SUBSCRIPTIONS}/:id`,
    auth: 'account',
    params: SUBSCRIPTION_ID,
    document: graphql('mutation DeleteWebhookSubscription($id: Text!) { deleteWebhookSubscription(id: $id) }'),
    variables: ({ params }) => ({ id: params.id }),
    respond: ({ deleteWebhookSubscription: id }) => ({
      body: { success: true, message: `Webhook subscription ${id} deleted; its pending deliveries are cancelled` },
    }),
    doc: {
      summary: 'Delete a subscription and cancel its pending deliveries',
      response: Schemas.DeleteSubscriptionResponse,
      errors: ['not_found'],
      example: {
        request: `${SUBSCRIPTIONS}/${EXAMPLE_ID}`,
        response: { success: true, message: `Webhook subscription ${EXAMPLE_ID} deleted; its pending deliveries are cancelled` },
      },
    },
    cacheControl: 'no-store',
  }),
  defineRoute({
    name: 'UpdateWebhookSubscription',
    method: 'PATCH',
    path: `${SUBSCRIPTIONS}/:id`,
    auth: 'account',
    params: SUBSCRIPTION_ID,
    body: z.object({ isActive: Field.boolean.meta({ description: 'true: deliver again (and start counting failures from 0); false: pause' }) }),
    document: graphql(`mutation UpdateWebhookSubscription($id: Text!, $isActive: Boolean!) {
      setWebhookSubscriptionActive(id: $id, isActive: $isActive) { ${SUBSCRIPTION_FIELDS} }
    }`),
    variables: ({ params, body }) => ({ id: params.id, isActive: body.isActive }),
    respond: ({ setWebhookSubscriptionActive: subscription }) => ({ body: { success: true, subscription } }),
    doc: {
      summary: 'Re-activate (or pause) a subscription',
      description: '`{"isActive": true}` re-activates a subscription switched off after 10 failed deliveries in a row and resets its failure count.',
      response: Schemas.UpdateSubscriptionResponse,
      errors: ['not_found', 'webhooks_not_available'],
      example: {
        request: `${SUBSCRIPTIONS}/${EXAMPLE_ID}`,
        body: { isActive: true },
        response: { success: true, subscription: EXAMPLE_SUBSCRIPTION },
        varies: ['subscription.createdAt'],
      },
    },
    cacheControl: 'no-store',
  }),
  defineRoute({
    name: 'TestWebhookSubscription',
    method: 'POST',
    path: `${SUBSCRIPTIONS}/:id/test`,
    auth: 'account',
    params: SUBSCRIPTION_ID,
    document: graphql(`
      mutation TestWebhookSubscription($id: Text!) {
        testWebhookSubscription(id: $id) {
          delivered
          responseStatus
          message
        }
      }
    `),
    variables: ({ params }) => ({ id: params.id }),
    respond: ({ testWebhookSubscription: test }) => ({
      body: { success: test.delivered, responseStatus: test.responseStatus, message: test.message },
    }),
    doc: {
      summary: 'Send one signed rates.test delivery now',
      description: 'The delivery carries the newest rates, with the event `rates.test`; the answer says what the receiver answered.',
      response: Schemas.TestDeliveryResponse,
      errors: ['not_found', 'webhooks_not_available'],
      example: {
        request: `${SUBSCRIPTIONS}/${EXAMPLE_ID}/test`,
        response: { success: true, responseStatus: 200, message: 'Test delivery 0b6f2c1e-4d8a-4f3b-9c7e-2a5d8e1f6b90 acknowledged with 200' },
        // what the receiver answers, and the delivery's own id
        varies: ['success', 'responseStatus', 'message'],
      },
    },
    cacheControl: 'no-store',
  }),
  defineRoute({
    name: 'WebhookDeliveries',
    method: 'GET',
    path: `${SUBSCRIPTIONS}/:id/deliveries`,
    auth: 'account',
    query: z.object({ cursor: Param.cursor.optional() }),
    params: SUBSCRIPTION_ID,
    document: graphql(`
      query WebhookDeliveries($id: Text!, $cursor: Text) {
        webhookDeliveries(id: $id, cursor: $cursor) {
          deliveries { ${DELIVERY_FIELDS} }
          nextCursor
        }
      }
    `),
    variables: ({ params, query }) => ({ id: params.id, cursor: query.cursor ?? null }),
    respond: ({ webhookDeliveries: page }) => ({ body: { success: true, deliveries: page.deliveries, nextCursor: page.nextCursor } }),
    doc: {
      summary: "A subscription's deliveries of the last 30 days",
      description:
        'Newest first, 50 a page, test deliveries included (`event` tells them apart), each with its attempts oldest first. Pass `nextCursor` as `cursor` for the next page.',
      response: Schemas.DeliveryListResponse,
      errors: ['not_found'],
      example: {
        request: `${SUBSCRIPTIONS}/${EXAMPLE_ID}/deliveries`,
        response: {
          success: true,
          deliveries: [
            {
              id: '3b241101-e2bb-4255-8caf-4136c566a962',
              event: 'rates.published',
              date: '2023-01-04',
              state: 'delivered',
              attempts: [
                { at: '2023-01-04T06:00:02.000Z', status: 503, error: 'HTTP 503', durationMs: 84 },
                { at: '2023-01-04T06:01:02.000Z', status: 200, error: null, durationMs: 61 },
              ],
            },
          ],
          nextCursor: null,
        },
        replayedBy: 'test/webhooks/delivery-log.test.ts',
      },
    },
    cacheControl: 'no-store',
  }),
  defineRoute({
    name: 'RedeliverWebhookDelivery',
    method: 'POST',
    path: `${SUBSCRIPTIONS}/:id/deliveries/:deliveryId/redeliver`,
    auth: 'account',
    params: z.object({ id: Param.id, deliveryId: Param.deliveryId }),
    document: graphql(`
      mutation RedeliverWebhookDelivery($id: Text!, $deliveryId: Text!) {
        redeliverWebhookDelivery(id: $id, deliveryId: $deliveryId) { ${DELIVERY_FIELDS} }
      }
    `),
    variables: ({ params }) => ({ id: params.id, deliveryId: params.deliveryId }),
    respond: ({ redeliverWebhookDelivery: { id, state, attempts } }) => ({
      body: { success: state === 'delivered', delivery: { id, state, attempts } },
    }),
    doc: {
      summary: 'Send a delivery once more now',
      description:
        'One new attempt of a delivery of the last 30 days, with the same body and delivery id, signed with the current secret, on an active or a paused subscription (which it does not reactivate). Answers once the attempt is made.',
      response: Schemas.RedeliverResponse,
      errors: ['not_found', 'webhooks_not_available'],
      example: {
        request: `${SUBSCRIPTIONS}/${EXAMPLE_ID}/deliveries/3b241101-e2bb-4255-8caf-4136c566a962/redeliver`,
        response: {
          success: true,
          delivery: {
            id: '3b241101-e2bb-4255-8caf-4136c566a962',
            state: 'delivered',
            attempts: [
              { at: '2023-01-04T06:00:02.000Z', status: 503, error: 'HTTP 503', durationMs: 84 },
              { at: '2023-01-04T09:12:40.000Z', status: 200, error: null, durationMs: 58 },
            ],
          },
        },
        replayedBy: 'test/webhooks/delivery-log.test.ts',
      },
    },
    cacheControl: 'no-store',
  }),
  // Rate alerts (docs/api.md §4.3), authorised as the webhook subscriptions are.
  defineRoute({
    name: 'CreateAlert',
    method: 'POST',
    path: ALERTS,
    auth: 'account',
    body: z.object({
      currency: Field.text.meta({ description: 'The code to watch: one of the 20 codes of /symbols but AUD' }),
      condition: Field.text.meta({ enum: ['above', 'below', 'change_pct'], description: 'above, below or change_pct' }),
      value: Field.decimal.meta({
        description:
          'A positive decimal of at most 6 places, below 1000000000: the rate level (A$1 = value units) for above and below, a percentage for change_pct',
      }),
      channels: Field.strings.meta({ description: 'email, webhook or both (webhook needs the Professional plan or above)' }),
      description: Field.text.optional().meta({ description: 'A note of your own, at most 200 characters, shown when listing' }),
    }),
    document: graphql(`
      mutation CreateAlert($input: CreateAlertInput!) {
        createAlert(input: $input) { ${ALERT_FIELDS} }
      }
    `),
    variables: ({ body }) => ({ input: body }),
    respond: ({ createAlert: alert }) => ({ body: { success: true, alert: alertJson(alert) } }),
    doc: {
      summary: 'Create a rate alert',
      description:
        "Checked at every publication: `above` fires when the new rate is at or above `value` and the previous rate day's was below it, `below` the mirror, `change_pct` when the day's move is at least `value` per cent either way. At most once per rate day. Starter (3 alerts, e-mail only), Professional (20), Business (100) and Enterprise (500).",
      response: Schemas.AlertResponse,
      errors: ['alerts_not_available', 'alert_limit_reached', 'webhooks_not_available'],
      example: {
        request: ALERTS,
        body: { currency: 'USD', condition: 'above', value: 0.69, channels: ['email', 'webhook'], description: 'invoice USD when the dollar is strong' },
        response: { success: true, alert: EXAMPLE_ALERT },
        varies: ['alert.id', 'alert.createdAt'],
      },
    },
    cacheControl: 'no-store',
  }),
  defineRoute({
    name: 'Alerts',
    method: 'GET',
    path: ALERTS,
    auth: 'account',
    document: graphql(`query Alerts {
      alerts { alerts { ${ALERT_FIELDS} } limit }
    }`),
    variables: () => ({}),
    respond: ({ alerts: list }) => ({ body: { success: true, alerts: list.alerts.map(alertJson), limit: list.limit } }),
    doc: {
      summary: "The account's rate alerts",
      response: Schemas.AlertListResponse,
      errors: [],
      example: {
        request: ALERTS,
        response: { success: true, alerts: [EXAMPLE_ALERT], limit: 100 },
        varies: ['alerts.0.id', 'alerts.0.createdAt'],
      },
    },
    cacheControl: 'no-store',
  }),
  defineRoute({
    name: 'UpdateAlert',
    method: 'PATCH',
    path: `${ALERTS}/:id`,
    auth: 'account',
    params: ALERT_PARAMS,
    body: z.object({ isActive: Field.boolean.meta({ description: 'false: pause; true: resume' }) }),
    document: graphql(`mutation UpdateAlert($id: Text!, $isActive: Boolean!) {
      setAlertActive(id: $id, isActive: $isActive) { ${ALERT_FIELDS} }
    }`),
    variables: ({ params, body }) => ({ id: params.id, isActive: body.isActive }),
    respond: ({ setAlertActive: alert }) => ({ body: { success: true, alert: alertJson(alert) } }),
    doc: {
      summary: 'Pause or resume an alert',
      response: Schemas.AlertResponse,
      errors: ['not_found', 'alerts_not_available'],
      example: {
        request: `${ALERTS}/${EXAMPLE_ALERT_ID}`,
        body: { isActive: false },
        response: { success: true, alert: { ...EXAMPLE_ALERT, isActive: false } },
        varies: ['alert.createdAt'],
      },
    },
    cacheControl: 'no-store',
  }),
  defineRoute({
    name: 'DeleteAlert',
    method: 'DELETE',
    path: `${ALERTS}/:id`,
    auth: 'account',
    params: ALERT_PARAMS,
    document: graphql('mutation DeleteAlert($id: Text!) { deleteAlert(id: $id) }'),
    variables: ({ params }) => ({ id: params.id }),
    respond: ({ deleteAlert: id }) => ({ body: { success: true, message: `Rate alert ${id} deleted` } }),
    doc: {
      summary: 'Delete an alert and its firings',
      response: Schemas.DeleteAlertResponse,
      errors: ['not_found'],
      example: { request: `${ALERTS}/${EXAMPLE_ALERT_ID}`, response: { success: true, message: `Rate alert ${EXAMPLE_ALERT_ID} deleted` } },
    },
    cacheControl: 'no-store',
  }),
  defineRoute({
    name: 'TestAlert',
    method: 'POST',
    path: `${ALERTS}/:id/test`,
    auth: 'account',
    params: ALERT_PARAMS,
    document: graphql(`
      mutation TestAlert($id: Text!) {
        testAlert(id: $id) {
          email {
            to
            sent
            message
          }
          webhooks {
            subscriptionId
            url
            delivered
            responseStatus
            message
          }
        }
      }
    `),
    variables: ({ params }) => ({ id: params.id }),
    respond: ({ testAlert: test }) => ({
      body: { success: (test.email?.sent ?? true) && test.webhooks.every((w) => w.delivered), email: test.email, webhooks: test.webhooks },
    }),
    doc: {
      summary: 'Send a sample of an alert on each of its channels now',
      description:
        "From the newest two rate days of its currency, whatever its condition: an e-mail to the account's address (with the `email` channel) and a signed delivery with the event `rates.test` and the `rates.alert` body to each active subscription covering the currency (with the `webhook` channel). A test never counts as a firing.",
      response: Schemas.TestAlertResponse,
      errors: ['not_found', 'alerts_not_available'],
      example: {
        request: `${ALERTS}/${EXAMPLE_ALERT_ID}/test`,
        response: {
          success: true,
          email: { to: 'treasury@example.com', sent: true, message: 'Test e-mail sent to treasury@example.com' },
          webhooks: [
            {
              subscriptionId: EXAMPLE_ID,
              url: 'https://hooks.example.com/rates',
              delivered: true,
              responseStatus: 200,
              message: 'Test delivery 0b6f2c1e-4d8a-4f3b-9c7e-2a5d8e1f6b90 acknowledged with 200',
            },
          ],
        },
        replayedBy: 'test/alerts/publication.test.ts',
      },
    },
    cacheControl: 'no-store',
  }),
  defineRoute({
    name: 'Averages',
    method: 'GET',
    cacheable: true,
    rates: true,
    path: '/averages',
    auth: 'key',
    query: AVERAGES_QUERY,
    document: AVERAGES,
    variables: ({ query }) => ({
      start: query.period?.start ?? query.start_date!,
      end: query.period?.end ?? query.end_date!,
      codes: query.symbols ?? null,
      byMonth: query.interval !== undefined,
    }),
    respond: (data, { query }) => ({ body: averagesJson(query.period?.name ?? null, data.periodAverages) }),
    csv: (data, { query }) => averagesCsv(query.period?.name ?? null, data.periodAverages),
    doc: {
      summary: 'Period averages: the figures accountants file',
      description:
        "Per code, over the rate days of the period that carry a value: the mean (exact, rounded half away from zero to 6 places), the number of days, the first and last of them, the rate on the last (the nearest actual rate at the period's end), the lowest and the highest. Give exactly one of `period` or `start_date` and `end_date` (at most 365 days apart). Starter keys reach periods inside their 30-day history window; Professional and above any period from 2018; Free none. A code without a value in the period is left out; a period without any rate day is 404. With `Accept: text/csv` the answer is a CSV file: a header row `code,mean,days,first_date,last_date,end_rate,min,max` and one row per code (with `interval=month`, a leading `month` column and one row per month and code); errors stay JSON.",
      response: Schemas.AveragesResponse,
      errors: ['plan_restricted', 'not_found'],
      example: {
        request: '/averages?period=2023-01&symbols=USD,EUR',
        response: {
          success: true,
          averages: true,
          period: '2023-01',
          start_date: '2023-01-01',
          end_date: '2023-01-31',
          complete: true,
          base: 'AUD',
          rates: {
            USD: { mean: 0.68195, days: 2, first_date: '2023-01-03', last_date: '2023-01-04', end_rate: 0.6811, min: 0.6811, max: 0.6828 },
            EUR: { mean: 0.64185, days: 2, first_date: '2023-01-03', last_date: '2023-01-04', end_rate: 0.6437, min: 0.64, max: 0.6437 },
          },
        },
        csv: 'code,mean,days,first_date,last_date,end_rate,min,max\nUSD,0.68195,2,2023-01-03,2023-01-04,0.6811,0.6811,0.6828\nEUR,0.64185,2,2023-01-03,2023-01-04,0.6437,0.64,0.6437\n',
      },
    },
    cacheControl: 'no-store',
  }),
];
