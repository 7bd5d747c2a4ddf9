// The public REST contract as data: each endpoint is one GraphQL operation, a mapper from the HTTP
// request to its variables and a mapper from its result to the JSON of docs/api.md.
import type { DocumentNode } from 'graphql';
import type { RateValues } from '../db/rates.js';
import { QUOTE_NOTE, QUOTED_CODES } from '../domain/currencies.js';
import { graphql, type TadaDocumentNode } from '../graphql.js';
import { ANONYMOUS, type ApiKeyViewer } from '../schema/context.js';
import { datedRatesRefused, mayReadDatedRates } from '../schema/viewer-scopes.js';
import { RawJson, ratesJson, seriesJson, type Json } from '../json.js';
import type { ZodType } from 'zod';
import { JsonFields } from './body.js';
import type { RefusalCode } from '../http/error-status.js';
import * as Schemas from './openapi/schemas.js';
import { CsvBody, csvRow } from './csv.js';
import { BadRequestError } from '../errors.js';
import { namedPeriod } from '../domain/period-averages.js';
import { AVERAGES, averagesCsv, averagesJson } from './averages.js';
import { QueryParams, checkBase, parseAmount, parseCode, parseCodeList, parseDate } from './params.js';

export interface RouteRequest {
  params: Readonly<Record<string, string>>;
  search: URLSearchParams;
  /** the raw request body of a route that takes one (`body: 'json'`), else null */
  body: string | null;
  viewer: ApiKeyViewer | null;
  documentationUrl: string;
}

/**
 * One endpoint: its operation (`document`), typed from schema.graphql (src/graphql.ts) by
 * `defineRoute`, so that `variables` must return exactly the document's variables and `respond`
 * reads exactly its result, checked at compile time. The facade holds every route as a plain
 * `Route` and runs only these documents, compiled once at start-up (steps/operation.ts `prepareDocuments`):
 * nothing from a request becomes a document.
 */
export interface Route<Result = unknown, Variables = Record<string, unknown>> {
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
  /** a JSON body of at most 16 KiB is read before the variables are mapped */
  body?: 'json';
  /** the answer depends only on the query, the viewer's plan, the stored rates and the time: identical requests may share it briefly */
  cacheable?: boolean;
  /** answers with rates: a stale answer says so (D23 in docs/decisions.md, src/rest/steps/freshness.ts) */
  rates?: boolean;
  document: DocumentNode;
  variables(req: RouteRequest): Variables;
  respond(data: Result, req: RouteRequest): { body: Json; status?: number };
  /** the answer as CSV, for a client whose Accept prefers text/csv (src/rest/csv.ts) */
  csv?(data: Result, req: RouteRequest): CsvBody;
  cacheControl: string;
  /** what the OpenAPI document says of the route (src/rest/openapi/document.ts) */
  doc?: RouteDoc;
}

export interface ParameterDoc {
  name: string;
  in: 'query' | 'path';
  required?: boolean;
  schema: ZodType;
  /** added to the schema's own description */
  description?: string;
}

export interface RouteDoc {
  summary: string;
  description?: string;
  parameters?: readonly ParameterDoc[];
  requestBody?: ZodType;
  /** the success body */
  response: ZodType;
  /**
   * the error types the route answers itself; those of its `auth` (401, 429) and those of every
   * endpoint (400 bad_request, 403 https_required, 503) are added by the document
   */
  errors: readonly RefusalCode[];
  /** statuses other than 200 that answer with a body of their own (not the error envelope) */
  otherResponses?: Readonly<Record<number, ZodType>>;
  /** a request (query string or path) and its answer with the fixture data of test/fixtures/rba/ */
  example?: { query?: string; path?: string; body: unknown; csv?: string };
}

/** Refuses a `variables` that returns a variable its document does not declare. */
type OnlyDeclared<Returned, Declared> = [Exclude<keyof Returned, keyof Declared>] extends [never]
  ? unknown
  : { variables: 'returns a variable that the document does not declare' };

/**
 * Checks a route against its document (the types come from the document alone), then hands it on
 * as a plain `Route`: a method's parameters are bivariant, so the typed route is one. (An enum value
 * written as a literal in `variables` needs `as const`: TypeScript widens it while it infers.)
 */
export const defineRoute = <Result, Variables extends Record<string, unknown>, Returned extends Variables>(
  route: Route<NoInfer<Result>, Returned> & { document: TadaDocumentNode<Result, Variables> } & OnlyDeclared<Returned, Variables>,
): Route => route;

/** The day of /latest and /{date}, whichever field of the schema answered it. */
interface DayData {
  date: string;
  timestamp: number;
  rates: RateValues;
}

/** The body of /latest and /{date}; with `fallback` (D38), `requested_date` echoes the date asked for. */
const ratesBody = (day: DayData, req?: RouteRequest): Json => ({
  success: true,
  timestamp: day.timestamp,
  base: 'AUD',
  date: day.date,
  requested_date: req?.search.has('fallback') ? req.params.date : undefined,
  rates: ratesJson(day.rates),
});

/** D38: `fallback` of /{date} and /{date}/{currency}, the only parameter they take. */
function fallbackOf(search: URLSearchParams): 'previous' | 'next' | null {
  const fallback = new QueryParams(search, ['fallback']).optional('fallback');
  if (fallback === undefined) return null;
  if (fallback === 'previous' || fallback === 'next') return fallback;
  throw new BadRequestError(`Invalid fallback '${fallback.slice(0, 40)}': use previous or next, or leave it out for exactly that date`);
}

/** `symbols` and `base` of /latest and /timeseries. */
function symbolsAndBase(params: QueryParams) {
  checkBase(params.optional('base'));
  const symbols = params.optional('symbols');
  return symbols === undefined ? null : parseCodeList(symbols, 'symbols');
}

/** The query of /timeseries and /fluctuation: a date range, `symbols` and `base`. */
function dateRange(search: URLSearchParams) {
  const params = new QueryParams(search, ['start_date', 'end_date', 'symbols', 'base']);
  const start = parseDate(params.required('start_date'), 'start_date');
  const end = parseDate(params.required('end_date'), 'end_date');
  return { start, end, codes: symbolsAndBase(params) };
}

/**
 * The query of /averages (D37): exactly one of `period` (five forms, any case) or
 * `start_date`+`end_date`; `symbols`, `base`, and `interval=month`. Syntax only: the range's length
 * and direction are the core's rules.
 */
function averagesQuery(search: URLSearchParams) {
  const params = new QueryParams(search, ['period', 'start_date', 'end_date', 'symbols', 'base', 'interval']);
  const periodText = params.optional('period');
  const custom = params.optional('start_date') !== undefined || params.optional('end_date') !== undefined;
  if ((periodText === undefined) === !custom) {
    throw new BadRequestError('Give either period (such as FY2025, 2024, 2025-H1, 2025-Q3 or 2025-06) or start_date and end_date, not both');
  }
  let period: string | null = null;
  let range: { start: string; end: string };
  if (periodText !== undefined) {
    const named = namedPeriod(periodText);
    if (!named) {
      throw new BadRequestError(
        `Invalid period '${periodText.slice(0, 40)}': use YYYY, FYYYYY (the financial year ending 30 June), YYYY-H1 or H2, YYYY-Q1 to Q4, or YYYY-MM`,
      );
    }
    ({ name: period, ...range } = named);
  } else {
    range = { start: parseDate(params.required('start_date'), 'start_date'), end: parseDate(params.required('end_date'), 'end_date') };
  }
  const interval = params.optional('interval');
  if (interval !== undefined && interval !== 'month') throw new BadRequestError(`Invalid interval '${interval.slice(0, 40)}': the only interval is month`);
  return { period, variables: { ...range, codes: symbolsAndBase(params), byMonth: interval !== undefined } };
}

/** Exact decimal strings written as JSON numbers. */
const rawNumbers = (decimals: Record<string, string>): Record<string, RawJson> =>
  Object.fromEntries(Object.entries(decimals).map(([name, value]) => [name, new RawJson(value)]));

const NO_QUERY: readonly string[] = [];

const SYMBOLS_PARAM: ParameterDoc = { name: 'symbols', in: 'query', schema: Schemas.Param.symbols };
const BASE_PARAM: ParameterDoc = { name: 'base', in: 'query', schema: Schemas.Param.base };
const RANGE_PARAMS: readonly ParameterDoc[] = [
  { name: 'start_date', in: 'query', required: true, schema: Schemas.Param.date },
  { name: 'end_date', in: 'query', required: true, schema: Schemas.Param.date, description: 'not before start_date' },
  SYMBOLS_PARAM,
  BASE_PARAM,
];
const FALLBACK_PARAM: ParameterDoc = { name: 'fallback', in: 'query', schema: Schemas.FallbackParam };
const SUBSCRIPTION_ID: ParameterDoc = { name: 'id', in: 'path', required: true, schema: Schemas.Param.id };

const SUBSCRIPTIONS = '/api/webhook-subscriptions';
/** The list fields of docs/api.md §2.11, in its order. */
const SUBSCRIPTION_FIELDS = 'id url currencies description isActive failureCount lastSuccessAt createdAt';
const DELIVERY_FIELDS = 'id event date state attempts { at status error durationMs }';

const DATE_SEGMENT = /^[0-9-]+$/; // D14: digits and dashes are a date attempt; anything else is an unknown path

export const routes: readonly Route[] = [
  defineRoute({
    name: 'Root',
    method: 'GET',
    cacheable: true,
    path: '/',
    auth: 'none',
    document: graphql('query Root { version }'),
    variables: (req) => (new QueryParams(req.search, NO_QUERY), {}),
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
    },
    cacheControl: 'no-cache',
  }),
  defineRoute({
    name: 'Status',
    method: 'GET',
    path: '/status',
    auth: 'none',
    document: graphql('query Status { serviceStatus { state servable lastUpdate stale nextUpdateExpected } }'),
    variables: (req) => (new QueryParams(req.search, NO_QUERY), {}),
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
      summary: 'Whether the data is current (D22)',
      description: 'Never needs a key and is never metered. A 503 (`degraded` without servable data) has the same shape as the 200.',
      response: Schemas.StatusResponse,
      errors: [],
      otherResponses: { 503: Schemas.StatusResponse },
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
    variables: (req) => (new QueryParams(req.search, NO_QUERY), {}),
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
    variables: (req) => {
      // Who may ask for a dated conversion is the core's rule (the `datedRates` scope). It is asked
      // here too, on the mere presence of `date`, only because D11 puts the key (401) before the
      // parameters (400) and the parameters are read before the operation runs.
      if (req.search.has('date') && !mayReadDatedRates(req.viewer ?? ANONYMOUS)) throw datedRatesRefused();
      const params = new QueryParams(req.search, ['from', 'to', 'amount', 'date']);
      const from = parseCode(params.required('from'), 'from');
      const to = parseCode(params.required('to'), 'to');
      const amount = parseAmount(params.required('amount'));
      const dateText = params.optional('date');
      const date = dateText === undefined ? null : parseDate(dateText, 'date');
      return { from, to, amount, date };
    },
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
        "Keyed: counted against the monthly quota, and `date` may be given within the plan's history (D13). Without a key (free mode): the latest rates only, `free: true`, 3 requests an hour per client (D19); a `date` without a key is 401. The rate is units of `to` per unit of `from` (D15), from the newest day on which both have a rate, on or before `date` (D9).",
      parameters: [
        { name: 'from', in: 'query', required: true, schema: Schemas.Param.code },
        { name: 'to', in: 'query', required: true, schema: Schemas.Param.code, description: 'not `TWI` (D15)' },
        { name: 'amount', in: 'query', required: true, schema: Schemas.Param.amount },
        { name: 'date', in: 'query', schema: Schemas.Param.date, description: 'only with a key' },
      ],
      response: Schemas.ConversionResponse,
      errors: ['plan_restricted'],
      example: {
        query: '?from=USD&to=EUR&amount=100&date=2023-01-03',
        body: {
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
    document: graphql(`
      query Latest($codes: [CurrencyCode!]) {
        latest {
          date
          timestamp
          rates(codes: $codes)
        }
      }
    `),
    variables: (req) => ({ codes: symbolsAndBase(new QueryParams(req.search, ['symbols', 'base'])) }),
    respond: (data) => ({ body: ratesBody(data.latest) }),
    doc: {
      summary: 'The newest published rates',
      parameters: [SYMBOLS_PARAM, BASE_PARAM],
      response: Schemas.RatesResponse,
      errors: [],
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
    document: graphql(`
      query LatestCurrency($code: CurrencyCode!) {
        latest(having: $code) {
          date
          timestamp
          rates(codes: [$code])
        }
      }
    `),
    variables: (req) => {
      new QueryParams(req.search, NO_QUERY);
      return { code: parseCode(req.params.currency!, 'the path') };
    },
    respond: (data) => ({ body: ratesBody(data.latest) }),
    doc: {
      summary: 'The newest published rate of one currency',
      description: 'The newest day on which that code has a rate (D10).',
      parameters: [{ name: 'currency', in: 'path', required: true, schema: Schemas.Param.code }],
      response: Schemas.RatesResponse,
      errors: ['not_found'],
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
    document: graphql(`
      query TimeSeries($start: LocalDate!, $end: LocalDate!, $codes: [CurrencyCode!]) {
        timeSeries(startDate: $start, endDate: $end, having: $codes) {
          rates(codes: $codes)
        }
      }
    `),
    variables: (req) => dateRange(req.search),
    respond: (data, req) => ({
      body: {
        success: true,
        timeseries: true,
        start_date: req.search.get('start_date')!,
        end_date: req.search.get('end_date')!,
        base: 'AUD',
        rates: seriesJson(data.timeSeries.rates),
      },
    }),
    // Columns in the order of `symbols`, else every code in /latest's order; a blank where a code was not published.
    csv: ({ timeSeries: { rates } }, req) => {
      const { start, end, codes } = dateRange(req.search);
      const columns = codes ?? QUOTED_CODES;
      return new CsvBody(`aud-rates_${start}_${end}.csv`, function* () {
        yield csvRow(['date', ...columns]);
        for (const [date, day] of rates.entries()) yield csvRow([date, ...columns.map((code) => day[code] ?? '')]);
      });
    },
    doc: {
      summary: 'The rates of every day with data in a date range',
      description:
        "Only days with data appear (D8); the range may be at most the plan's time-series range and start within its history (D13). With `Accept: text/csv` the answer is a CSV file (`text/csv; charset=utf-8`, LF line ends, no BOM): a header row `date,USD,EUR,…` in the order of `symbols` (every code in /latest's order otherwise), one row per rate day, ascending, with the digits of the JSON and an empty cell where a code was not published; errors stay JSON.",
      parameters: RANGE_PARAMS,
      response: Schemas.TimeSeriesResponse,
      errors: ['plan_restricted', 'not_found'],
      example: {
        query: '?start_date=2023-01-01&end_date=2023-01-31&symbols=USD,EUR',
        body: {
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
    variables: (req) => dateRange(req.search),
    respond: (data, req) => ({
      body: {
        success: true,
        fluctuation: true,
        start_date: req.search.get('start_date')!,
        end_date: req.search.get('end_date')!,
        base: 'AUD',
        rates: Object.fromEntries(data.fluctuation.map(({ code, days, ...figures }) => [code, { ...rawNumbers(figures), days }])),
      },
    }),
    doc: {
      summary: 'How each currency moved over a date range',
      description:
        'Per code, over the days of the range on which it has a rate: the rate on the first and last of them, the exact change, the change in percent and the mean (both rounded half away from zero to 6 places), the lowest and highest rate and the number of days. The range rules, plan windows and errors of /timeseries apply (D8, D13); a range without any rate day is 404, a code without a rate in it is left out.',
      parameters: RANGE_PARAMS,
      response: Schemas.FluctuationResponse,
      errors: ['plan_restricted', 'not_found'],
      example: {
        query: '?start_date=2023-01-01&end_date=2023-01-31&symbols=USD,EUR',
        body: {
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
    document: graphql(`
      query RateDay($date: LocalDate!, $fallback: RateFallback) {
        rateDay(date: $date, fallback: $fallback) {
          date
          timestamp
          rates
        }
      }
    `),
    variables: (req) => ({ date: parseDate(req.params.date!, 'the path'), fallback: fallbackOf(req.search) }),
    respond: (data, req) => ({ body: ratesBody(data.rateDay, req) }),
    doc: {
      summary: 'The rates of one date',
      description:
        "Exactly that date: a weekend, a holiday or a day the RBA did not publish is 404 (D7), unless `fallback` asks for the nearest rate day before or after it. The plan's history window applies to the date asked for and to the day used.",
      parameters: [{ name: 'date', in: 'path', required: true, schema: Schemas.Param.date }, FALLBACK_PARAM],
      response: Schemas.RatesResponse,
      errors: ['plan_restricted', 'not_found'],
      example: {
        path: '/2023-01-03',
        body: {
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
    document: graphql(`
      query RateDayCurrency($date: LocalDate!, $code: CurrencyCode!, $fallback: RateFallback) {
        rateDay(date: $date, having: $code, fallback: $fallback) {
          date
          timestamp
          rates(codes: [$code])
        }
      }
    `),
    variables: (req) => {
      const fallback = fallbackOf(req.search);
      return { date: parseDate(req.params.date!, 'the path'), code: parseCode(req.params.currency!, 'the path'), fallback };
    },
    respond: (data, req) => ({ body: ratesBody(data.rateDay, req) }),
    doc: {
      summary: 'The rate of one currency on one date',
      parameters: [
        { name: 'date', in: 'path', required: true, schema: Schemas.Param.date },
        { name: 'currency', in: 'path', required: true, schema: Schemas.Param.code },
        FALLBACK_PARAM,
      ],
      response: Schemas.RatesResponse,
      errors: ['plan_restricted', 'not_found'],
      example: { path: '/2023-01-03/USD', body: { success: true, timestamp: 1672704000, base: 'AUD', date: '2023-01-03', rates: { USD: 0.6828 } } },
    },
    cacheControl: 'no-store',
  }),
  // Webhook subscriptions (docs/api.md §4.2) on the same listener.
  defineRoute({
    name: 'CreateWebhookSubscription',
    method: 'POST',
    path: SUBSCRIPTIONS,
    auth: 'account',
    body: 'json',
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
    variables: (req) => {
      new QueryParams(req.search, NO_QUERY);
      const body = new JsonFields(req.body!, ['url', 'currencies', 'description']);
      const url = body.string('url', true);
      const currencies = body.stringArray('currencies')?.map((code) => parseCode(code, 'currencies'));
      return { input: { url, currencies, description: body.string('description') } };
    },
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
        'Professional plans and above (docs/api.md §8). The signing secret is in this response only. Deliveries and their signature: see Webhooks above.',
      requestBody: Schemas.CreateSubscriptionRequest,
      response: Schemas.CreateSubscriptionResponse,
      errors: ['webhooks_not_available', 'subscription_limit_reached'],
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
    variables: (req) => (new QueryParams(req.search, NO_QUERY), {}),
    respond: ({ webhookSubscriptions: list }) => ({
      body: { success: true, subscriptions: list.subscriptions, limit: list.limit },
    }),
    doc: {
      summary: "The account's webhook subscriptions",
      response: Schemas.SubscriptionListResponse,
      errors: [],
    },
    cacheControl: 'no-store',
  }),
  defineRoute({
    name: 'DeleteWebhookSubscription',
    method: 'DELETE',
    path: `${SUBSCRIPTIONS}/:id`,
    auth: 'account',
    document: graphql('mutation DeleteWebhookSubscription($id: Text!) { deleteWebhookSubscription(id: $id) }'),
    variables: (req) => (new QueryParams(req.search, NO_QUERY), { id: req.params.id! }),
    respond: ({ deleteWebhookSubscription: id }) => ({
      body: { success: true, message: `Webhook subscription ${id} deleted; its pending deliveries are cancelled` },
    }),
    doc: {
      summary: 'Delete a subscription and cancel its pending deliveries',
      parameters: [SUBSCRIPTION_ID],
      response: Schemas.DeleteSubscriptionResponse,
      errors: ['not_found'],
    },
    cacheControl: 'no-store',
  }),
  defineRoute({
    name: 'UpdateWebhookSubscription',
    method: 'PATCH',
    path: `${SUBSCRIPTIONS}/:id`,
    auth: 'account',
    body: 'json',
    document: graphql(`mutation UpdateWebhookSubscription($id: Text!, $isActive: Boolean!) {
      setWebhookSubscriptionActive(id: $id, isActive: $isActive) { ${SUBSCRIPTION_FIELDS} }
    }`),
    variables: (req) => {
      new QueryParams(req.search, NO_QUERY);
      return { id: req.params.id!, isActive: new JsonFields(req.body!, ['isActive']).boolean('isActive') };
    },
    respond: ({ setWebhookSubscriptionActive: subscription }) => ({ body: { success: true, subscription } }),
    doc: {
      summary: 'Re-activate (or pause) a subscription',
      description: '`{"isActive": true}` re-activates a subscription switched off by failures and resets its failure count (D28).',
      parameters: [SUBSCRIPTION_ID],
      requestBody: Schemas.UpdateSubscriptionRequest,
      response: Schemas.UpdateSubscriptionResponse,
      errors: ['not_found', 'webhooks_not_available'],
    },
    cacheControl: 'no-store',
  }),
  defineRoute({
    name: 'TestWebhookSubscription',
    method: 'POST',
    path: `${SUBSCRIPTIONS}/:id/test`,
    auth: 'account',
    document: graphql(`
      mutation TestWebhookSubscription($id: Text!) {
        testWebhookSubscription(id: $id) {
          delivered
          responseStatus
          message
        }
      }
    `),
    variables: (req) => (new QueryParams(req.search, NO_QUERY), { id: req.params.id! }),
    respond: ({ testWebhookSubscription: test }) => ({
      body: { success: test.delivered, responseStatus: test.responseStatus, message: test.message },
    }),
    doc: {
      summary: 'Send one signed rates.test delivery now',
      parameters: [SUBSCRIPTION_ID],
      response: Schemas.TestDeliveryResponse,
      errors: ['not_found', 'webhooks_not_available'],
    },
    cacheControl: 'no-store',
  }),
  defineRoute({
    name: 'WebhookDeliveries',
    method: 'GET',
    path: `${SUBSCRIPTIONS}/:id/deliveries`,
    auth: 'account',
    document: graphql(`
      query WebhookDeliveries($id: Text!, $cursor: Text) {
        webhookDeliveries(id: $id, cursor: $cursor) {
          deliveries { ${DELIVERY_FIELDS} }
          nextCursor
        }
      }
    `),
    variables: (req) => {
      const cursor = new QueryParams(req.search, ['cursor']).optional('cursor');
      return { id: req.params.id!, cursor: cursor ?? null };
    },
    respond: ({ webhookDeliveries: page }) => ({ body: { success: true, deliveries: page.deliveries, nextCursor: page.nextCursor } }),
    doc: {
      summary: "A subscription's deliveries of the last 30 days",
      description:
        'Newest first, 50 a page, test deliveries included (`event` tells them apart), each with its attempts oldest first. Pass `nextCursor` as `cursor` for the next page.',
      parameters: [SUBSCRIPTION_ID, { name: 'cursor', in: 'query', schema: Schemas.Param.cursor }],
      response: Schemas.DeliveryListResponse,
      errors: ['not_found'],
    },
    cacheControl: 'no-store',
  }),
  defineRoute({
    name: 'RedeliverWebhookDelivery',
    method: 'POST',
    path: `${SUBSCRIPTIONS}/:id/deliveries/:deliveryId/redeliver`,
    auth: 'account',
    document: graphql(`
      mutation RedeliverWebhookDelivery($id: Text!, $deliveryId: Text!) {
        redeliverWebhookDelivery(id: $id, deliveryId: $deliveryId) { ${DELIVERY_FIELDS} }
      }
    `),
    variables: (req) => (new QueryParams(req.search, NO_QUERY), { id: req.params.id!, deliveryId: req.params.deliveryId! }),
    respond: ({ redeliverWebhookDelivery: { id, state, attempts } }) => ({
      body: { success: state === 'delivered', delivery: { id, state, attempts } },
    }),
    doc: {
      summary: 'Send a delivery once more now',
      description:
        'One new attempt of a delivery of the last 30 days, with the same body and delivery id, signed with the current secret, on an active or a paused subscription (which it does not reactivate). Answers once the attempt is made.',
      parameters: [SUBSCRIPTION_ID, { name: 'deliveryId', in: 'path', required: true, schema: Schemas.Param.deliveryId }],
      response: Schemas.RedeliverResponse,
      errors: ['not_found', 'webhooks_not_available'],
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
    document: AVERAGES,
    variables: (req) => averagesQuery(req.search).variables,
    respond: (data, req) => ({ body: averagesJson(averagesQuery(req.search).period, data.periodAverages) }),
    csv: (data, req) => averagesCsv(averagesQuery(req.search).period, data.periodAverages),
    doc: {
      summary: 'Period averages: the figures accountants file',
      description:
        "Per code, over the rate days of the period that carry a value: the mean (exact, rounded half away from zero to 6 places), the number of days, the first and last of them, the rate on the last (the nearest actual rate at the period's end), the lowest and the highest. Give exactly one of `period` or `start_date` and `end_date` (at most 365 days apart). Starter keys reach periods inside their 30-day history window; Professional and above any period from 2018; Free none. A code without a value in the period is left out; a period without any rate day is 404. With `Accept: text/csv` the answer is a CSV file: a header row `code,mean,days,first_date,last_date,end_rate,min,max` and one row per code (with `interval=month`, a leading `month` column and one row per month and code); errors stay JSON.",
      parameters: [
        { name: 'period', in: 'query', schema: Schemas.AveragesParam.period },
        { name: 'start_date', in: 'query', schema: Schemas.Param.date, description: 'with end_date, instead of period' },
        { name: 'end_date', in: 'query', schema: Schemas.Param.date, description: 'not before start_date, and at most 365 days after it' },
        SYMBOLS_PARAM,
        BASE_PARAM,
        { name: 'interval', in: 'query', schema: Schemas.AveragesParam.interval },
      ],
      response: Schemas.AveragesResponse,
      errors: ['plan_restricted', 'not_found'],
      example: {
        query: '?period=2023-01&symbols=USD,EUR',
        body: {
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
