// The OpenAPI 3.1 document, generated at start-up from the route table (src/rest/routes.ts): each
// route's path, method and `doc`, its parameters and body from the same zod schemas that read them,
// the response bodies of ./schemas.ts, all through zod's JSON Schema output, and the status codes
// docs/api.md §4.1 and the decisions give each endpoint. Everything in it is for customers: it names
// no decision and no file of the repository (test/rest/openapi.test.ts checks).
import { readFileSync } from 'node:fs';
import { z, type ZodType } from 'zod';
import { ERROR_STATUS, type RefusalCode } from '../../http/error-status.js';
import { MAX_PARAM_LENGTH, type NamedValues } from '../params.js';
import { MEDIA_TYPES, type FileFormat } from '../representations.js';
import { representationsOf, type Route, type RouteExample } from '../route.js';
import { errorEnvelope } from './schemas.js';

/** What a user needs beyond the schema (quote direction, days, plans, errors, webhooks), in markdown. */
export const API_GUIDE = readFileSync(new URL('./guide.md', import.meta.url), 'utf8');

export const API_TITLE = 'AUD exchange rates API';

type RecordedAnswers = Pick<RouteExample, 'response' | 'csv' | 'ndjson'>;
/** The answers to the routes' example requests, recorded from the RBA's real data (see `RouteExample`). */
const RECORDED = JSON.parse(readFileSync(new URL('./examples.json', import.meta.url), 'utf8')) as Readonly<Record<string, RecordedAnswers>>;

/** A route's example: its request, with the answers it gives or those recorded for it. */
export const exampleOf = (route: Route): RouteExample => ({ ...RECORDED[route.name], ...route.doc!.example });

type Json = Record<string, unknown>;

const SCHEMA_TARGET = {
  target: 'draft-2020-12',
  unrepresentable: 'throw',
  // A format (date, date-time, uri) says what a value is in words a reader knows; zod's regular
  // expression for it would say the same unreadably.
  override: ({ jsonSchema }: { jsonSchema: Json }) => {
    if (jsonSchema.format) delete jsonSchema.pattern;
    // zod gives every integer the bounds of a safe integer, which say nothing a reader can use:
    // only a bound the schema sets itself is shown.
    if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
    if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
    // The docs page's renderer refuses a schema without a `type`, such as an `anyOf` of plain values:
    // a nullable value is written as a list of types, and a string of either of two kinds as one
    // string, its kinds in its description.
    const branches = jsonSchema.anyOf as Json[] | undefined;
    const values = branches?.filter((branch) => branch.type !== 'null') ?? [];
    const kinds = new Set(values.map((branch) => branch.type));
    if (branches?.every((branch) => typeof branch.type === 'string') && kinds.size === 1) {
      const kind = values[0]!.type as string;
      delete jsonSchema.anyOf;
      if (values.length === 1) Object.assign(jsonSchema, values[0]!);
      jsonSchema.type = values.length === branches.length ? kind : [kind, 'null'];
    }
  },
} as const;
const COMPONENT = (id: string) => `#/components/schemas/${id}`;

/**
 * A schema as JSON Schema: a reference when it has an id (it is among the components), inline
 * otherwise. A request's schemas are written as the client sends them (`input`), before they are read.
 */
function jsonSchema(schema: ZodType, io: 'input' | 'output' = 'output'): Json {
  const id = z.globalRegistry.get(schema)?.id;
  if (id) return { $ref: COMPONENT(id) };
  const inline = z.toJSONSchema(schema, { ...SCHEMA_TARGET, io }) as Json;
  delete inline.$schema; // the document's jsonSchemaDialect says it once
  return inline;
}

const header = (description: string, schema: Json = { type: 'string' }) => ({ description, schema });

const HEADERS = {
  'X-Request-Id': header('A unique id for the request, on every response; quote it when asking for help'),
  ETag: header('The version of the answer: send it back in If-None-Match to get a 304 when it has not changed'),
  'Cache-Control': header('`no-store` on keyed answers, `no-cache` on / and /status, `public, max-age=86400` on /symbols, `public, max-age=3600` on /calendar'),
  'X-RateLimit-Limit-Monthly': header("The plan's monthly quota (Free: its one-time allowance of 300)", { type: 'integer' }),
  'X-RateLimit-Remaining-Monthly': header('Requests left in this billing period', { type: 'integer' }),
  'X-RateLimit-Reset': header(
    "When the quota (keyed: the account's next billing day) or the hourly window (free mode) resets; left out on Free, whose allowance never resets",
    {
      type: 'string',
      format: 'date-time',
    },
  ),
  'X-RateLimit-Limit': header('Free-mode /convert: requests allowed per window (3)', { type: 'integer' }),
  'X-RateLimit-Remaining': header('Free-mode /convert: requests left in this window', { type: 'integer' }),
  'X-RateLimit-Window': header('Free-mode /convert: the window, in seconds (3600)', { type: 'integer' }),
  'X-Data-Stale': header('`true` when the newest stored rates are older than the last publication the RBA should have made', {
    type: 'string',
    enum: ['true'],
  }),
  'X-RBA-Source-Date': header('With X-Data-Stale: the date of the newest rates served', { type: 'string', format: 'date' }),
  'Retry-After': header('Seconds until a retry may succeed', { type: 'integer' }),
  'WWW-Authenticate': header('`Bearer`'),
  Allow: header('The methods the path answers'),
  'Content-Disposition': header('On a file: `attachment; filename="aud-rates_<start>_<end>.csv"` (`.ndjson`, `.xlsx`)'),
} as const;
type HeaderName = keyof typeof HEADERS;
const headerRefs = (names: readonly HeaderName[]) => Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  304: 'Not modified: the If-None-Match ETag still matches',
  400: 'Bad request',
  401: 'Missing or invalid API key',
  403: 'Refused',
  404: 'Not found',
  406: 'Not acceptable: the Accept header allows none of the formats',
  429: 'Quota or limit used up',
  503: 'The service cannot answer now',
};

/** The error types a route can answer: its own, those its authentication and metering bring, and those of every endpoint. */
function errorTypes(route: Route): RefusalCode[] {
  // Every route refuses unknown and repeated query parameters (400), plain HTTP (D20) and may be unable to answer (D12).
  const types: RefusalCode[] = [...route.doc!.errors, 'bad_request', 'https_required', 'service_unavailable'];
  // a key's restrictions (its addresses and endpoints) apply wherever a key is read
  if (route.auth === 'key' || route.auth === 'optional')
    types.push('unauthorized', 'invalid_api_key', 'account_suspended', 'key_restricted', 'rate_limit_exceeded');
  if (route.auth === 'account') types.push('invalid_api_key', 'account_suspended', 'key_restricted');
  return types;
}

function rateLimitHeaders(route: Route): HeaderName[] {
  if (route.auth === 'key') return ['X-RateLimit-Limit-Monthly', 'X-RateLimit-Remaining-Monthly', 'X-RateLimit-Reset'];
  if (route.auth === 'optional') {
    return [
      'X-RateLimit-Limit-Monthly',
      'X-RateLimit-Remaining-Monthly',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Window',
      'X-RateLimit-Reset',
    ];
  }
  return [];
}

const FILE_DESCRIPTIONS: Record<FileFormat, string> = {
  csv: 'With `Accept: text/csv`: a CSV file (UTF-8, LF line ends, no BOM), values with the decimals the RBA published',
  ndjson: 'With `Accept: application/x-ndjson`: one JSON object a line, in date order, written as it is produced',
  xlsx: 'With `Accept: application/vnd.openxmlformats-officedocument.spreadsheetml.sheet`: an Excel workbook with real dates, values formatted with the decimals the RBA published, and a `Source` sheet',
};

/** The example of a file the route's example gives (the workbook's bytes are not shown). */
function fileExample(example: RouteExample, format: FileFormat): Json {
  const text = format === 'csv' ? example.csv : format === 'ndjson' ? example.ndjson : undefined;
  return text === undefined ? {} : { example: text };
}

function responsesOf(route: Route): Json {
  const doc = route.doc!;
  const example = exampleOf(route);
  const isGet = route.method === 'GET';
  const freshness: HeaderName[] = route.rates ? ['X-Data-Stale', 'X-RBA-Source-Date'] : [];
  const successHeaders: HeaderName[] = ['X-Request-Id', 'Cache-Control', ...(isGet ? (['ETag'] as const) : []), ...rateLimitHeaders(route), ...freshness];
  const content: Json = {};
  for (const representation of representationsOf(route)) {
    const type = MEDIA_TYPES[representation];
    if (representation === 'json') content[type] = { schema: jsonSchema(route.response!), example: example.response };
    else content[type] = { schema: { type: 'string', description: FILE_DESCRIPTIONS[representation] }, ...fileExample(example, representation) };
  }
  if (route.files) successHeaders.push('Content-Disposition');
  const responses: Json = { 200: { description: STATUS_TEXT[200], headers: headerRefs(successHeaders), content } };
  if (isGet) responses[304] = { description: STATUS_TEXT[304], headers: headerRefs(['X-Request-Id', 'ETag']) };

  const byStatus = new Map<number, string[]>();
  for (const type of new Set(errorTypes(route))) {
    const status = ERROR_STATUS[type];
    byStatus.set(status, [...(byStatus.get(status) ?? []), type]);
  }
  for (const [status, types] of [...byStatus].sort(([a], [b]) => a - b)) {
    const envelope = jsonSchema(errorEnvelope(status, types as [string, ...string[]]));
    const own = doc.otherResponses?.[status];
    const extra: HeaderName[] = status === 401 ? ['WWW-Authenticate'] : status === 429 ? ['Retry-After', ...rateLimitHeaders(route)] : [];
    responses[status] = {
      description: `${STATUS_TEXT[status]}: ${types.map((t) => `\`${t}\``).join(', ')}`,
      headers: headerRefs(['X-Request-Id', ...extra]),
      content: { 'application/json': { schema: own ? { anyOf: [jsonSchema(own), envelope] } : envelope } },
    };
  }
  return responses;
}

/** What the example's request gives each path segment and query parameter. */
function exampleValues(route: Route, example: RouteExample): { path: Record<string, string>; query: URLSearchParams } {
  const url = new URL(example.request, 'http://example.invalid');
  const segments = url.pathname.split('/');
  const path: Record<string, string> = {};
  route.path.split('/').forEach((segment, i) => {
    if (segment.startsWith(':')) path[segment.slice(1)] = decodeURIComponent(segments[i]!);
  });
  return { path, query: url.searchParams };
}

/**
 * The parameters of `schema`, each with its description (from the schema, said once, on the
 * parameter) and the example request's value as its example, which the docs page's code samples
 * and its "Test Request" send. The page leaves out an optional parameter unless its example says
 * `x-disabled: false` (Scalar's extension of the Example Object), so every value of the example
 * request is given that way: the page then sends exactly the request whose answer it shows.
 */
function parametersOf(schema: NamedValues | undefined, place: 'query' | 'path', example: (name: string) => string | null | undefined): Json[] {
  return Object.entries(schema?.shape ?? {}).map(([name, value]) => {
    const { description, ...valueSchema } = jsonSchema(value, 'input');
    if (place === 'query' && valueSchema.type === 'string') valueSchema.maxLength = Math.min(Number(valueSchema.maxLength ?? Infinity), MAX_PARAM_LENGTH);
    const given = example(name);
    return {
      name,
      in: place,
      required: place === 'path' || !value.isOptional(),
      ...(description ? { description } : {}),
      schema: valueSchema,
      ...(given != null ? { examples: { default: { value: given, 'x-disabled': false } } } : {}),
    };
  });
}

function tagOf(route: Route): string {
  if (route.auth === 'none') return 'Service';
  if (route.auth !== 'account') return 'Rates';
  if (route.path.startsWith('/api/alerts')) return 'Rate alerts';
  return route.path.startsWith('/api/webhook-subscriptions') ? 'Webhook subscriptions' : 'Account';
}

function operationOf(route: Route): Json {
  const doc = route.doc!;
  const examples = exampleValues(route, doc.example);
  const parameters = [
    ...parametersOf(route.params, 'path', (name) => examples.path[name]),
    ...parametersOf(route.query, 'query', (name) => examples.query.get(name)),
  ];
  const undeclared = route.path.match(/:[A-Za-z]+/g)?.find((segment) => !route.params?.shape[segment.slice(1)]);
  if (undeclared) throw new Error(`Route ${route.name}: the path's ${undeclared} has no schema in \`params\``);
  const security = route.auth === 'none' ? [] : route.auth === 'optional' ? [{}, { bearer: [] }] : [{ bearer: [] }];
  return {
    operationId: route.name,
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: [tagOf(route)],
    security,
    ...(parameters.length ? { parameters } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: jsonSchema(route.body, 'input'), ...(doc.example.body ? { example: doc.example.body } : {}) } },
          },
        }
      : {}),
    responses: responsesOf(route),
  };
}

/** `/latest/:currency` as OpenAPI writes it, `/latest/{currency}`. */
export const openApiPath = (path: string) => path.replace(/:([A-Za-z]+)/g, '{$1}');

export interface DocumentOptions {
  /** the service's public origin (PUBLIC_URL) */
  serverUrl: string;
  version: string;
  /** the document's description: markdown, what a user needs beyond the schema */
  guide: string;
  /** operations served beside the route table (the document itself, the docs page) */
  extraPaths?: Json;
}

export function openApiDocument(table: readonly Route[], options: DocumentOptions): Json {
  const paths: Record<string, Json> = {};
  for (const route of table) {
    if (!route.doc) throw new Error(`Route ${route.name} has no doc for the OpenAPI document`);
    // (a route without a recorded example yet is served without one, so that the test that records it can run)
    if (route.respond && !route.response) throw new Error(`Route ${route.name} answers JSON: its doc needs the response's schema`);
    (paths[openApiPath(route.path)] ??= {})[route.method.toLowerCase()] = operationOf(route);
  }
  const { schemas } = z.toJSONSchema(z.globalRegistry, { ...SCHEMA_TARGET, uri: COMPONENT }) as { schemas: Record<string, Json> };
  // A component is found by its place in the document; an `$id` of its own would be a second name,
  // and JSON Schema refuses a fragment as one.
  for (const schema of Object.values(schemas)) {
    delete schema.$schema;
    delete schema.$id;
  }
  return {
    openapi: '3.1.1',
    info: {
      title: API_TITLE,
      version: options.version,
      description: options.guide,
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: options.serverUrl }],
    tags: [
      { name: 'Rates', description: 'Keyed data endpoints, metered against the monthly quota' },
      { name: 'Service', description: 'No key, never metered' },
      { name: 'Webhook subscriptions', description: 'The account’s own subscriptions, managed with its API key; never metered' },
      { name: 'Rate alerts', description: 'The account’s own alerts on a currency’s rate, managed with its API key; never metered' },
      { name: 'Account', description: 'Where the account stands, read with its API key; never metered' },
    ],
    paths: { ...paths, ...options.extraPaths },
    components: {
      schemas,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key, sent over HTTPS as `Authorization: Bearer <key>`' } },
      headers: HEADERS,
      responses: {
        MethodNotAllowed: {
          description:
            'Any method but GET, HEAD and OPTIONS on a data endpoint, or one a webhook path does not take: `method_not_allowed`, with an `Allow` header',
          headers: headerRefs(['Allow', 'X-Request-Id']),
          content: { 'application/json': { schema: jsonSchema(errorEnvelope(405, ['method_not_allowed'])) } },
        },
      },
    },
  };
}
