// The public REST contract as data: each endpoint is one GraphQL operation, a mapper from the HTTP
// request to its variables and a mapper from its result to SPEC's JSON.
import type { RateValues } from '../db/rates.js';
import { QUOTE_NOTE } from '../domain/currencies.js';
import { BadRequestError, UnauthorizedError } from '../errors.js';
import type { Viewer } from '../schema/context.js';
import { RawJson, ratesJson, seriesJson, type Json } from './json.js';
import { QueryParams, checkBase, parseAmount, parseCode, parseCodeList, parseDate } from './params.js';

export interface RouteRequest {
  params: Record<string, string>;
  search: URLSearchParams;
  viewer: Viewer | null;
  documentationUrl: string;
}

export interface Route<Data = any> {
  /** the operation's name; also how usage and logs name the endpoint */
  name: string;
  /** segments; `:name` matches one segment, optionally constrained by `paramPatterns` */
  path: string;
  paramPatterns?: Record<string, RegExp>;
  /** 'key': a key is required; 'optional': free mode without one (/convert) */
  auth: 'none' | 'key' | 'optional';
  document: string;
  variables: (req: RouteRequest) => Record<string, unknown>;
  respond: (data: Data, req: RouteRequest) => { body: Json; status?: number };
  cacheControl: string;
}

const defineRoute = <Data>(route: Route<Data>): Route<Data> => route;

/** Every rate operation also asks for freshness, so stale responses can say so (D23). */
const FRESHNESS = 'freshness: serviceStatus { stale newestRateDate }';

interface DayData {
  date: string;
  timestamp: number;
  rates: RateValues;
}

const ratesBody = (day: DayData): Json => ({
  success: true,
  timestamp: day.timestamp,
  base: 'AUD',
  date: day.date,
  rates: ratesJson(day.rates),
});

/** `symbols` and `base` of /latest and /timeseries. */
function symbolsAndBase(params: QueryParams) {
  checkBase(params.optional('base'));
  const symbols = params.optional('symbols');
  return symbols === undefined ? null : parseCodeList(symbols, 'symbols');
}

const NO_QUERY: readonly string[] = [];
const DATE_SEGMENT = /^[0-9-]+$/; // D14: digits and dashes are a date attempt; anything else is an unknown path

export const routes: readonly Route[] = [
  defineRoute<{ version: string }>({
    name: 'Root',
    path: '/',
    auth: 'none',
    document: 'query Root { version }',
    variables: (req) => (new QueryParams(req.search, NO_QUERY), {}),
    respond: (data, req) => ({
      body: {
        success: true,
        message: 'Reserve Bank of Australia exchange rates (table F11.1, 4 pm Sydney), quoted against AUD',
        documentation: req.documentationUrl,
        version: data.version,
      },
    }),
    cacheControl: 'no-cache',
  }),
  defineRoute<{
    serviceStatus: { state: string; servable: boolean; lastUpdate: string | null; stale: boolean; nextUpdateExpected: string };
  }>({
    name: 'Status',
    path: '/status',
    auth: 'none',
    document: 'query Status { serviceStatus { state servable lastUpdate stale nextUpdateExpected } }',
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
    cacheControl: 'no-cache',
  }),
  defineRoute<{ currencies: { code: string; name: string; symbol: string; country: string }[] }>({
    name: 'Symbols',
    path: '/symbols',
    auth: 'none',
    document: 'query Symbols { currencies { code name symbol country } }',
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
    cacheControl: 'public, max-age=86400',
  }),
  defineRoute<{
    convert: { from: string; to: string; amount: string; rate: string; result: string; date: string; timestamp: number };
  }>({
    name: 'Convert',
    path: '/convert',
    auth: 'optional',
    document: `query Convert($from: CurrencyCode!, $to: CurrencyCode!, $amount: Decimal!, $date: LocalDate) {
      convert(from: $from, to: $to, amount: $amount, date: $date) { from to amount rate result date timestamp }
      ${FRESHNESS}
    }`,
    variables: (req) => {
      // D11, D12: a historical conversion without a key is refused before its parameters are read.
      if (!req.viewer && req.search.has('date')) {
        throw new UnauthorizedError('Historical conversion (date) needs an API key: send Authorization: Bearer <key>');
      }
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
    cacheControl: 'no-store',
  }),
  defineRoute<{ latest: DayData }>({
    name: 'Latest',
    path: '/latest',
    auth: 'key',
    document: `query Latest($codes: [CurrencyCode!]) {
      latest { date timestamp rates(codes: $codes) }
      ${FRESHNESS}
    }`,
    variables: (req) => ({ codes: symbolsAndBase(new QueryParams(req.search, ['symbols', 'base'])) }),
    respond: (data) => ({ body: ratesBody(data.latest) }),
    cacheControl: 'no-store',
  }),
  defineRoute<{ latest: DayData }>({
    name: 'LatestCurrency',
    path: '/latest/:currency',
    auth: 'key',
    document: `query LatestCurrency($code: CurrencyCode!) {
      latest(having: $code) { date timestamp rates(codes: [$code]) }
      ${FRESHNESS}
    }`,
    variables: (req) => {
      new QueryParams(req.search, NO_QUERY);
      return { code: parseCode(req.params.currency!, 'the path') };
    },
    respond: (data) => ({ body: ratesBody(data.latest) }),
    cacheControl: 'no-store',
  }),
  defineRoute<{ timeSeries: { rates: Record<string, RateValues> } }>({
    name: 'TimeSeries',
    path: '/timeseries',
    auth: 'key',
    document: `query TimeSeries($start: LocalDate!, $end: LocalDate!, $codes: [CurrencyCode!]) {
      timeSeries(startDate: $start, endDate: $end, having: $codes) { rates(codes: $codes) }
      ${FRESHNESS}
    }`,
    variables: (req) => {
      const params = new QueryParams(req.search, ['start_date', 'end_date', 'symbols', 'base']);
      const start = parseDate(params.required('start_date'), 'start_date');
      const end = parseDate(params.required('end_date'), 'end_date');
      if (end < start) throw new BadRequestError('end_date must not be before start_date');
      return { start, end, codes: symbolsAndBase(params) };
    },
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
    cacheControl: 'no-store',
  }),
  defineRoute<{ rateDay: DayData }>({
    name: 'RateDay',
    path: '/:date',
    paramPatterns: { date: DATE_SEGMENT },
    auth: 'key',
    document: `query RateDay($date: LocalDate!) {
      rateDay(date: $date) { date timestamp rates }
      ${FRESHNESS}
    }`,
    variables: (req) => {
      new QueryParams(req.search, NO_QUERY);
      return { date: parseDate(req.params.date!, 'the path') };
    },
    respond: (data) => ({ body: ratesBody(data.rateDay) }),
    cacheControl: 'no-store',
  }),
  defineRoute<{ rateDay: DayData }>({
    name: 'RateDayCurrency',
    path: '/:date/:currency',
    paramPatterns: { date: DATE_SEGMENT },
    auth: 'key',
    document: `query RateDayCurrency($date: LocalDate!, $code: CurrencyCode!) {
      rateDay(date: $date, having: $code) { date timestamp rates(codes: [$code]) }
      ${FRESHNESS}
    }`,
    variables: (req) => {
      new QueryParams(req.search, NO_QUERY);
      return { date: parseDate(req.params.date!, 'the path'), code: parseCode(req.params.currency!, 'the path') };
    },
    respond: (data) => ({ body: ratesBody(data.rateDay) }),
    cacheControl: 'no-store',
  }),
];

