// The public REST contract as data: each endpoint is one GraphQL operation, a mapper from the HTTP
// request to its variables and a mapper from its result to the JSON of docs/api.md.
import type { RateValues } from '../db/rates.js';
import { QUOTE_NOTE, QUOTED_CODES } from '../domain/currencies.js';
import type { Fluctuation } from '../domain/fluctuation.js';
import { BadRequestError, UnauthorizedError } from '../errors.js';
import type { Viewer } from '../schema/context.js';
import { RawJson, ratesJson, seriesJson, type Json } from './json.js';
import { JsonFields } from './body.js';
import { CsvBody, csvRow } from './csv.js';
import { QueryParams, checkBase, parseAmount, parseCode, parseCodeList, parseDate } from './params.js';

export interface RouteRequest {
  params: Readonly<Record<string, string>>;
  search: URLSearchParams;
  /** the raw request body of a route that takes one (`body: 'json'`), else null */
  body: string | null;
  viewer: Viewer | null;
  documentationUrl: string;
}

export interface Route<Data = any> {
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
  document: string;
  variables: (req: RouteRequest) => Record<string, unknown>;
  respond: (data: Data, req: RouteRequest) => { body: Json; status?: number };
  /** the answer as CSV, for a client whose Accept prefers text/csv (src/rest/csv.ts) */
  csv?: (data: Data, req: RouteRequest) => CsvBody;
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

/** The query of /timeseries and /fluctuation: a date range, `symbols` and `base`. */
function dateRange(search: URLSearchParams) {
  const params = new QueryParams(search, ['start_date', 'end_date', 'symbols', 'base']);
  const start = parseDate(params.required('start_date'), 'start_date');
  const end = parseDate(params.required('end_date'), 'end_date');
  if (end < start) throw new BadRequestError('end_date must not be before start_date');
  return { start, end, codes: symbolsAndBase(params) };
}

/** Exact decimal strings written as JSON numbers. */
const rawNumbers = (decimals: Record<string, string>): Record<string, RawJson> =>
  Object.fromEntries(Object.entries(decimals).map(([name, value]) => [name, new RawJson(value)]));

const NO_QUERY: readonly string[] = [];

const SUBSCRIPTIONS = '/api/webhook-subscriptions';
/** The list fields of docs/api.md §2.11, in its order. */
const SUBSCRIPTION_FIELDS = 'id url currencies description isActive failureCount lastSuccessAt createdAt';

type SubscriptionData = {
  id: string;
  url: string;
  currencies: string[];
  description: string | null;
};
const DATE_SEGMENT = /^[0-9-]+$/; // D14: digits and dashes are a date attempt; anything else is an unknown path

export const routes: readonly Route[] = [
  defineRoute<{ version: string }>({
    name: 'Root',
    method: 'GET',
    cacheable: true,
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
    method: 'GET',
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
    method: 'GET',
    cacheable: true,
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
    method: 'GET',
    cacheable: true,
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
    method: 'GET',
    cacheable: true,
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
    method: 'GET',
    cacheable: true,
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
    method: 'GET',
    cacheable: true,
    path: '/timeseries',
    auth: 'key',
    document: `query TimeSeries($start: LocalDate!, $end: LocalDate!, $codes: [CurrencyCode!]) {
      timeSeries(startDate: $start, endDate: $end, having: $codes) { rates(codes: $codes) }
      ${FRESHNESS}
    }`,
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
        for (const date in rates) yield csvRow([date, ...columns.map((code) => rates[date]![code] ?? '')]);
      });
    },
    cacheControl: 'no-store',
  }),
  defineRoute<{ fluctuation: (Fluctuation & { code: string })[] }>({
    name: 'Fluctuation',
    method: 'GET',
    cacheable: true,
    path: '/fluctuation',
    auth: 'key',
    document: `query Fluctuation($start: LocalDate!, $end: LocalDate!, $codes: [CurrencyCode!]) {
      fluctuation(startDate: $start, endDate: $end, codes: $codes) { code start_rate: startRate end_rate: endRate change change_pct: changePct min max mean days }
      ${FRESHNESS}
    }`,
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
    cacheControl: 'no-store',
  }),
  defineRoute<{ rateDay: DayData }>({
    name: 'RateDay',
    method: 'GET',
    cacheable: true,
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
    method: 'GET',
    cacheable: true,
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
  // Webhook subscriptions (docs/api.md §4.2) on the same listener.
  defineRoute<{ createWebhookSubscription: { signingSecret: string; subscription: SubscriptionData } }>({
    name: 'CreateWebhookSubscription',
    method: 'POST',
    path: SUBSCRIPTIONS,
    auth: 'account',
    body: 'json',
    document: `mutation CreateWebhookSubscription($input: CreateWebhookSubscriptionInput!) {
      createWebhookSubscription(input: $input) { signingSecret subscription { id url currencies description } }
    }`,
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
    cacheControl: 'no-store',
  }),
  defineRoute<{ webhookSubscriptions: { subscriptions: SubscriptionData[]; limit: number } }>({
    name: 'WebhookSubscriptions',
    method: 'GET',
    path: SUBSCRIPTIONS,
    auth: 'account',
    document: `query WebhookSubscriptions {
      webhookSubscriptions { subscriptions { ${SUBSCRIPTION_FIELDS} } limit }
    }`,
    variables: (req) => (new QueryParams(req.search, NO_QUERY), {}),
    respond: ({ webhookSubscriptions: list }) => ({
      body: { success: true, subscriptions: list.subscriptions, limit: list.limit },
    }),
    cacheControl: 'no-store',
  }),
  defineRoute<{ deleteWebhookSubscription: string }>({
    name: 'DeleteWebhookSubscription',
    method: 'DELETE',
    path: `${SUBSCRIPTIONS}/:id`,
    auth: 'account',
    document: 'mutation DeleteWebhookSubscription($id: Text!) { deleteWebhookSubscription(id: $id) }',
    variables: (req) => (new QueryParams(req.search, NO_QUERY), { id: req.params.id! }),
    respond: ({ deleteWebhookSubscription: id }) => ({
      body: { success: true, message: `Webhook subscription ${id} deleted; its pending deliveries are cancelled` },
    }),
    cacheControl: 'no-store',
  }),
  defineRoute<{ setWebhookSubscriptionActive: SubscriptionData }>({
    name: 'UpdateWebhookSubscription',
    method: 'PATCH',
    path: `${SUBSCRIPTIONS}/:id`,
    auth: 'account',
    body: 'json',
    document: `mutation UpdateWebhookSubscription($id: Text!, $isActive: Boolean!) {
      setWebhookSubscriptionActive(id: $id, isActive: $isActive) { ${SUBSCRIPTION_FIELDS} }
    }`,
    variables: (req) => {
      new QueryParams(req.search, NO_QUERY);
      return { id: req.params.id!, isActive: new JsonFields(req.body!, ['isActive']).boolean('isActive') };
    },
    respond: ({ setWebhookSubscriptionActive: subscription }) => ({ body: { success: true, subscription } }),
    cacheControl: 'no-store',
  }),
  defineRoute<{ testWebhookSubscription: { delivered: boolean; responseStatus: number; message: string } }>({
    name: 'TestWebhookSubscription',
    method: 'POST',
    path: `${SUBSCRIPTIONS}/:id/test`,
    auth: 'account',
    document: `mutation TestWebhookSubscription($id: Text!) {
      testWebhookSubscription(id: $id) { delivered responseStatus message }
    }`,
    variables: (req) => (new QueryParams(req.search, NO_QUERY), { id: req.params.id! }),
    respond: ({ testWebhookSubscription: test }) => ({
      body: { success: test.delivered, responseStatus: test.responseStatus, message: test.message },
    }),
    cacheControl: 'no-store',
  }),
];

