// The public REST facade: HTTP in, one in-process GraphQL operation per request, the JSON of
// docs/api.md out.
// HTTP concerns (keys, quotas, headers, the error envelope) live here; domain rules in the schema.
import { hash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Response, createServerAdapter } from '@whatwg-node/server';
import { parse, validate, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { Logger } from 'pino';
import { DomainError, HttpsRequiredError, MethodNotAllowedError, NotFoundError, RateLimitExceededError } from '../errors.js';
import { createContext, type Services, type Viewer } from '../schema/context.js';
import type { KeyAuthenticator } from './auth.js';
import { missingAccountKey, missingKey } from './auth.js';
import { checkJsonContentType, MAX_BODY_BYTES, readLimited } from './body.js';
import { identifyPeer, type Peer, type TrustedProxies } from './client-address.js';
import { decodeQuery } from './params.js';
import type { RequestLimits } from './limits.js';
import type { UsageRecorder } from './usage.js';
import type { AnsweredRequest } from '../metrics.js';
import { errorEnvelope } from './error-status.js';
import { requestIdFrom } from '../http/request-id.js';
import { acceptedUrl } from '../http/request-target.js';
import { stringify } from './json.js';
import { CsvBody, prefersCsv } from './csv.js';
import { ResponseCache, type CachedAnswer } from './response-cache.js';
import { createRouter } from './router.js';
import { routes, type Route, type RouteRequest } from './routes.js';

export interface RestAppOptions {
  schema: GraphQLSchema;
  services: Services;
  keys: KeyAuthenticator;
  documentationUrl: string;
  logger: Logger;
  limits: RequestLimits;
  usage: UsageRecorder;
  trustedProxies: TrustedProxies;
  /** identical read requests share an answer for a second (response-cache.ts) */
  sharedAnswers: boolean;
  /** told of every answered request (GET /metrics on the internal port) */
  metrics: { request(answered: AnsweredRequest): void };
}

interface SocketInfo {
  remoteAddress?: string;
  encrypted?: boolean;
}

/** What @whatwg-node/server passes along from node:http (absent when the app is called directly). */
interface NodeContext {
  req?: { socket?: SocketInfo };
}

/** A request as the pipeline reads it, whichever transport brought it. */
interface RestRequest {
  method: string;
  url: URL;
  header(name: string): string | null;
  /** the body's bytes, refused past `limit` */
  body(limit: number): Promise<string>;
  socket: SocketInfo | undefined;
}

interface RestResponse {
  status: number;
  headers: Record<string, string>;
  body: string | CsvBody | null;
}

const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers':
    'ETag, Retry-After, X-Request-Id, X-Data-Stale, X-RBA-Source-Date, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Window, X-RateLimit-Reset, X-RateLimit-Limit-Monthly, X-RateLimit-Remaining-Monthly',
};
const PREFLIGHT_HEADERS = {
  'Access-Control-Allow-Headers': 'Authorization, Content-Type, If-None-Match',
  'Access-Control-Max-Age': '86400',
};

/** The methods a path answers: its routes', HEAD with GET, and OPTIONS. */
function allowedMethods(routes: readonly Route[]): string[] {
  const methods: string[] = routes.map((r) => r.method);
  if (methods.includes('GET')) methods.splice(methods.indexOf('GET') + 1, 0, 'HEAD');
  return [...methods, 'OPTIONS'];
}
/** how long identical requests share an answer (the stale flag and "today" move with the clock) */
const RESPONSE_TTL_MS = 1_000;

/**
 * Parses, validates and compiles every route's document once, at start-up; a bad one stops the
 * service. The documents never change, so each runs as a compiled function (graphql-jit) rather
 * than being walked again by the interpreter on every request.
 */
export function prepareDocuments(schema: GraphQLSchema, table: readonly Route[]): Map<Route, CompiledQuery> {
  const documents = new Map<Route, CompiledQuery>();
  for (const route of table) {
    const document = parse(route.document);
    const errors = validate(schema, document);
    if (errors.length > 0) throw new Error(`Route ${route.name}: ${errors.map((e) => e.message).join('; ')}`);
    const compiled = compileQuery(schema, document);
    if (!isCompiledQuery(compiled)) throw new Error(`Route ${route.name}: ${compiled.errors?.map((e) => e.message).join('; ')}`);
    documents.set(route, compiled);
  }
  return documents;
}

function etagOf(body: string): string {
  return `"${hash('sha1', body, 'base64url')}"`;
}

function matchesEtag(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

export function createRestApp(options: RestAppOptions) {
  const { schema, services, keys, logger, limits, usage } = options;
  const documents = prepareDocuments(schema, routes);
  const match = createRouter(routes);
  const responses = new ResponseCache(RESPONSE_TTL_MS, services.clock, () => services.rateHistory.generation);

  interface Outcome {
    status: number;
    body: string | CsvBody | null;
    route?: Route;
    viewer?: Viewer | null;
    /** false on the account's own endpoints: D25 (docs/decisions.md) keeps CORS to the data endpoints */
    cors: boolean;
    /** the matched path's template, for metrics */
    template?: string;
    cached?: boolean;
  }

  /** D20: TLS on the socket, or a trusted proxy saying https; plain HTTP only from this machine. */
  function checkHttps(request: RestRequest, peer: Peer, encrypted: boolean): void {
    if (encrypted) return;
    const forwardedProto = peer.viaTrustedProxy ? request.header('x-forwarded-proto') : null;
    if (forwardedProto !== null) {
      if (forwardedProto.split(',')[0]!.trim().toLowerCase() === 'https') return;
    } else if (peer.socketLoopback) {
      return;
    }
    throw new HttpsRequiredError('HTTPS is required: plain HTTP is refused');
  }

  async function handle(request: RestRequest, peer: Peer, headers: Record<string, string>, outcome: Outcome): Promise<void> {
    const { url } = request;
    const found = match(url.pathname);
    if (!found) throw new NotFoundError(`Unknown endpoint ${url.pathname}; see the documentation for the endpoints`);
    const { routes: candidates, params } = found;
    outcome.template = candidates[0]!.path;
    outcome.cors = candidates.every((r) => r.auth !== 'account');
    if (request.method === 'OPTIONS') {
      const allow = allowedMethods(candidates).join(', ');
      if (outcome.cors) Object.assign(headers, PREFLIGHT_HEADERS, { 'Access-Control-Allow-Methods': allow });
      headers.Allow = allow;
      outcome.status = 204;
      return;
    }
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    const route = candidates.find((r) => r.method === method);
    if (!route) throw new MethodNotAllowedError(allowedMethods(candidates));

    const viewer = route.auth === 'none' ? null : await keys.authenticate(request.header('authorization'));
    if (!viewer && route.auth === 'key') throw missingKey();
    if (!viewer && route.auth === 'account') throw missingAccountKey();
    outcome.route = route;
    outcome.viewer = viewer;
    const csv = route.csv !== undefined && prefersCsv(request.header('accept'));
    const cacheKey = route.cacheable && options.sharedAnswers ? `${viewer?.plan ?? '-'} ${csv ? 'csv' : 'json'} ${url.pathname}${url.search}` : null;
    const shared = cacheKey !== null ? responses.get(cacheKey) : undefined;
    outcome.cached = shared !== undefined;
    const answer = shared ?? (await answerOf(request, route, params, viewer, cacheKey, csv));
    Object.assign(headers, await limits.admit(route, viewer, peer.client), answer.headers);
    outcome.status = answer.status;
    outcome.body = answer.body;
    if (route.method !== 'GET') return;
    headers.ETag = answer.etag;
    if (answer.status === 200 && matchesEtag(request.header('if-none-match'), answer.etag)) {
      outcome.status = 304;
      outcome.body = null;
    }
  }

  /** Runs the route's operation and shapes its answer; a cacheable success is kept for the next identical request. */
  async function answerOf(
    request: RestRequest,
    route: Route,
    params: Readonly<Record<string, string>>,
    viewer: Viewer | null,
    cacheKey: string | null,
    csv: boolean,
  ): Promise<CachedAnswer> {
    const generation = services.rateHistory.generation;
    let body: string | null = null;
    if (route.body === 'json') {
      checkJsonContentType(request.header('content-type'));
      body = await request.body(MAX_BODY_BYTES);
    }
    const routeRequest: RouteRequest = { params, search: decodeQuery(request.url.search), body, viewer, documentationUrl: options.documentationUrl };
    const variableValues = route.variables(routeRequest);

    const result = await documents.get(route)!.query(undefined, createContext(services, { viewer }), variableValues);
    if (result.errors?.length) throw result.errors[0]!;
    const data = result.data as Record<string, any>;

    const { body: response, status = 200 } = route.respond(data, routeRequest);
    const headers: Record<string, string> = { 'Cache-Control': route.cacheControl };
    const freshness = data.freshness as { stale: boolean; newestRateDate: string | null } | undefined;
    if (freshness?.stale && freshness.newestRateDate) {
      headers['X-Data-Stale'] = 'true';
      headers['X-RBA-Source-Date'] = freshness.newestRateDate;
    }
    // A route with two representations says so to caches.
    if (route.csv) headers.Vary = 'Accept';
    let answer: CachedAnswer;
    if (csv) {
      const table = route.csv!(data, routeRequest);
      answer = { status, body: table, etag: table.etag(), headers: { ...headers, ...table.headers() } };
    } else {
      const text = stringify(response);
      answer = { status, body: text, etag: route.method === 'GET' ? etagOf(text) : '', headers };
    }
    if (cacheKey !== null && status === 200) responses.set(cacheKey, answer, generation);
    return answer;
  }

  // Most requests come from a few addresses without forwarding headers: each is parsed once.
  const peers = new Map<string, Peer>();
  function peerOf(request: RestRequest): Peer {
    const forwardedFor = request.header('x-forwarded-for');
    const address = request.socket?.remoteAddress;
    if (forwardedFor !== null || address === undefined) return identifyPeer(address, forwardedFor, options.trustedProxies);
    let peer = peers.get(address);
    if (!peer) {
      if (peers.size >= 10_000) peers.clear();
      peers.set(address, (peer = identifyPeer(address, null, options.trustedProxies)));
    }
    return peer;
  }

  async function serve(request: RestRequest): Promise<RestResponse> {
    const started = performance.now();
    const requestId = requestIdFrom(request.header('x-request-id'));
    const headers: Record<string, string> = { 'X-Request-Id': requestId };
    const outcome: Outcome = { status: 500, body: null, cors: true };
    try {
      const peer = peerOf(request);
      checkHttps(request, peer, request.socket?.encrypted === true);
      await handle(request, peer, headers, outcome);
    } catch (error) {
      Object.assign(outcome, failure(error, requestId, headers));
    }
    if (outcome.viewer && outcome.route) usage.record(outcome.viewer, outcome.route.name, outcome.status);
    options.metrics.request({
      route: outcome.template?.replace(/:([a-z]+)/gi, '{$1}') ?? 'unmatched',
      method: request.method,
      status: outcome.status,
      seconds: (performance.now() - started) / 1000,
      cached: outcome.cached === true,
      refusal: outcome.status === 429 ? (outcome.viewer ? 'quota' : 'keyless') : null,
    });
    if (outcome.cors) Object.assign(headers, CORS_HEADERS);
    if (typeof outcome.body === 'string') headers['Content-Type'] = 'application/json; charset=utf-8';
    return { status: outcome.status, headers, body: request.method === 'HEAD' ? null : outcome.body };
  }

  // Fetch-style, for tests and any fetch-based runtime: `app.rest.fetch(url, init)`.
  const adapter = createServerAdapter<NodeContext>(async (request: Request, context: NodeContext) => {
    const { status, headers, body } = await serve({
      method: request.method,
      url: new URL(request.url),
      header: (name) => request.headers.get(name),
      body: async (limit) => (request.body ? readLimited(request.body as AsyncIterable<Uint8Array>, limit) : ''),
      socket: context?.req?.socket,
    });
    return new Response(body instanceof CsvBody ? (Readable.toWeb(Readable.from(body.rows(), { objectMode: false })) as ReadableStream) : body, { status, headers });
  });

  // node:http directly: the listener's path. Skipping the Request/Response conversion and writing
  // head and body in one call more than doubles throughput over the adapter.
  function node(req: IncomingMessage, res: ServerResponse): void {
    const header = (name: string) => {
      const value = req.headers[name];
      return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
    };
    const url = acceptedUrl(req, res);
    if (!url) return;
    const body = (limit: number) => readLimited(req, limit);
    serve({ method: req.method ?? 'GET', url, header, body, socket: req.socket }).then(
      ({ status, headers, body }) => {
        res.writeHead(status, headers);
        if (body instanceof CsvBody) {
          // Row by row, waiting whenever the socket's buffer is full.
          pipeline(Readable.from(body.rows(), { objectMode: false }), res).catch((error: unknown) => logger.debug({ err: error }, 'a CSV answer was cut off'));
        } else {
          res.end(body ?? undefined);
        }
      },
    ).catch((error: unknown) => {
      // Last resort, for a fault no check above foresaw: logged, and the connection closed rather than the process.
      logger.error({ err: error }, 'answering a request failed');
      res.destroy();
    });
  }

  // eslint-disable-next-line @typescript-eslint/unbound-method -- the adapter's fetch is an arrow function, safe to hand on
  return { fetch: adapter.fetch, node };

  function failure(error: unknown, requestId: string, headers: Record<string, string>) {
    headers['Cache-Control'] = 'no-store';
    const original = error instanceof Error && 'originalError' in error ? (error.originalError ?? error) : error;
    if (original instanceof DomainError) {
      if (original instanceof MethodNotAllowedError) headers.Allow = original.allow.join(', ');
      if (original instanceof RateLimitExceededError) Object.assign(headers, original.headers);
      if (original.code === 'unauthorized' || original.code === 'invalid_api_key') headers['WWW-Authenticate'] = 'Bearer';
      return errorEnvelope(original.code, original.message);
    }
    // A GraphQL error with no path is about the request itself (a variable the schema refused).
    if (error instanceof Error && 'path' in error && error.path === undefined && !('originalError' in error && error.originalError)) {
      return errorEnvelope('bad_request', error.message);
    }
    logger.error({ err: original, requestId }, 'request failed');
    return errorEnvelope('service_unavailable', `The service could not answer this request; try again later (request ${requestId})`);
  }
}
