// The public REST contract as data: each endpoint is one GraphQL operation, a mapper from the HTTP
// request to its variables and a mapper from its result to the JSON of docs/api.md.
import type { DocumentNode } from 'graphql';
import type { RateValues } from '../db/rates.js';
import { QUOTE_NOTE } from '../domain/currencies.js';
import { graphql, type TadaDocumentNode } from '../graphql.js';
import { ANONYMOUS, type ApiKeyViewer } from '../schema/context.js';
import { datedRatesRefused, mayReadDatedRates } from '../schema/viewer-scopes.js';
import { RawJson, ratesJson, seriesJson, type Json } from '../json.js';
import { JsonFields } from './body.js';
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
  cacheControl: string;
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

const SUBSCRIPTIONS = '/api/webhook-subscriptions';
/** The list fields of docs/api.md §2.11, in its order. */
const SUBSCRIPTION_FIELDS = 'id url currencies description isActive failureCount lastSuccessAt createdAt';

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
    cacheControl: 'public, max-age=86400',
  }),
  defineRoute({
    name: 'Convert',
    method: 'GET',
    cacheable: true,
    rates: true,
    path: '/convert',
    auth: 'optional',
    document: graphql(`query Convert($from: CurrencyCode!, $to: CurrencyCode!, $amount: Decimal!, $date: LocalDate) {
      convert(from: $from, to: $to, amount: $amount, date: $date) { from to amount rate result date timestamp }
    }`),
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
    cacheControl: 'no-store',
  }),
  defineRoute({
    name: 'Latest',
    method: 'GET',
    cacheable: true,
    rates: true,
    path: '/latest',
    auth: 'key',
    document: graphql(`query Latest($codes: [CurrencyCode!]) {
      latest { date timestamp rates(codes: $codes) }
    }`),
    variables: (req) => ({ codes: symbolsAndBase(new QueryParams(req.search, ['symbols', 'base'])) }),
    respond: (data) => ({ body: ratesBody(data.latest) }),
    cacheControl: 'no-store',
  }),
  defineRoute({
    name: 'LatestCurrency',
    method: 'GET',
    cacheable: true,
    rates: true,
    path: '/latest/:currency',
    auth: 'key',
    document: graphql(`query LatestCurrency($code: CurrencyCode!) {
      latest(having: $code) { date timestamp rates(codes: [$code]) }
    }`),
    variables: (req) => {
      new QueryParams(req.search, NO_QUERY);
      return { code: parseCode(req.params.currency!, 'the path') };
    },
    respond: (data) => ({ body: ratesBody(data.latest) }),
    cacheControl: 'no-store',
  }),
  defineRoute({
    name: 'TimeSeries',
    method: 'GET',
    cacheable: true,
    rates: true,
    path: '/timeseries',
    auth: 'key',
    document: graphql(`query TimeSeries($start: LocalDate!, $end: LocalDate!, $codes: [CurrencyCode!]) {
      timeSeries(startDate: $start, endDate: $end, having: $codes) { rates(codes: $codes) }
    }`),
    variables: (req) => {
      const params = new QueryParams(req.search, ['start_date', 'end_date', 'symbols', 'base']);
      const start = parseDate(params.required('start_date'), 'start_date');
      const end = parseDate(params.required('end_date'), 'end_date');
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
  defineRoute({
    name: 'RateDay',
    method: 'GET',
    cacheable: true,
    rates: true,
    path: '/:date',
    paramPatterns: { date: DATE_SEGMENT },
    auth: 'key',
    document: graphql(`query RateDay($date: LocalDate!) {
      rateDay(date: $date) { date timestamp rates }
    }`),
    variables: (req) => {
      new QueryParams(req.search, NO_QUERY);
      return { date: parseDate(req.params.date!, 'the path') };
    },
    respond: (data) => ({ body: ratesBody(data.rateDay) }),
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
    document: graphql(`query RateDayCurrency($date: LocalDate!, $code: CurrencyCode!) {
      rateDay(date: $date, having: $code) { date timestamp rates(codes: [$code]) }
    }`),
    variables: (req) => {
      new QueryParams(req.search, NO_QUERY);
      return { date: parseDate(req.params.date!, 'the path'), code: parseCode(req.params.currency!, 'the path') };
    },
    respond: (data) => ({ body: ratesBody(data.rateDay) }),
    cacheControl: 'no-store',
  }),
  // Webhook subscriptions (docs/api.md §4.2) on the same listener.
  defineRoute({
    name: 'CreateWebhookSubscription',
    method: 'POST',
    path: SUBSCRIPTIONS,
    auth: 'account',
    body: 'json',
    document: graphql(`mutation CreateWebhookSubscription($input: CreateWebhookSubscriptionInput!) {
      createWebhookSubscription(input: $input) { signingSecret subscription { id url currencies description } }
    }`),
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
    cacheControl: 'no-store',
  }),
  defineRoute({
    name: 'TestWebhookSubscription',
    method: 'POST',
    path: `${SUBSCRIPTIONS}/:id/test`,
    auth: 'account',
    document: graphql(`mutation TestWebhookSubscription($id: Text!) {
      testWebhookSubscription(id: $id) { delivered responseStatus message }
    }`),
    variables: (req) => (new QueryParams(req.search, NO_QUERY), { id: req.params.id! }),
    respond: ({ testWebhookSubscription: test }) => ({
      body: { success: test.delivered, responseStatus: test.responseStatus, message: test.message },
    }),
    cacheControl: 'no-store',
  }),
];

