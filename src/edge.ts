// The way of a request, from a listener to its answer, for every listener of the service: the
// public one (the REST API, /docs, the dashboard, MCP) and the internal port. Read top to bottom:
//
//   1. node:http hands the request to the listener (src/http/server.ts), which judges its target and
//      Host once, then to the edge: one `@whatwg-node/server` adapter, which tests call through its
//      `fetch` as node:http calls it. What needs the raw request (a repeated header, the peer's
//      address, TLS) is read from the adapter's server context (`EdgeRequest`).
//   2. The listener's steps run in order (`publicSteps` below; the internal port's are in
//      src/internal/app.ts). `locate` finds the endpoint by method and path on one find-my-way router;
//      `answerMethods` answers what no endpoint does, once for every surface: 404, 405 with Allow,
//      OPTIONS, and HEAD as GET without a body.
//   3. `dispatch` hands the request to its endpoint's own steps (src/rest/pipeline.ts for the API).
//   4. The answer becomes the fetch Response the adapter writes, no earlier than the end of the turn
//      that read the request (src/http/end-of-turn.ts).
import { METHODS } from 'node:http';
import { Readable } from 'node:stream';
import { Response, createServerAdapter } from '@whatwg-node/server';
import FindMyWay from 'find-my-way';
import type { Logger } from 'pino';
import { NotFoundError } from './errors.js';
import { endOfTurn } from './http/end-of-turn.js';
import { MAX_HEADER_BYTES } from './http/limits.js';
import { MethodNotAllowedError } from './http/http-errors.js';
import type { AnsweredRequest } from './metrics.js';
import type { TrustedProxies } from './rest/client-address.js';
import { compose } from './rest/compose.js';
import { StreamedBody } from './rest/streamed-body.js';
import { EdgeRequest, type ServerContext } from './rest/edge-request.js';
import { Exchange, type Answer, type Endpoint, type Fallback, type RestRequest, type Step } from './rest/exchange.js';
import { decodePathSegment } from './rest/params.js';
import { identifyClient } from './rest/steps/client.js';
import { corsHeaders, preflightHeaders } from './rest/steps/cors.js';
import { envelopeOf, renderRefusals } from './rest/steps/errors.js';
import { requireHttps } from './rest/steps/https.js';
import { observe } from './rest/steps/observe.js';
import { requestId } from './rest/steps/request-id.js';
import type { UsageRecorder } from './rest/usage.js';

/** Where a request goes: its endpoint, or what the edge answers for its path (405, OPTIONS, 404). */
export interface Located {
  endpoint: Endpoint | null;
  params: Readonly<Record<string, string>>;
  /** the path's methods (empty when nothing serves the path) */
  allow: string;
  /** the path as metrics name it, whatever the method; `unmatched` when nothing serves it */
  template: string;
  cors: boolean;
  render: Endpoint['render'] | null;
  /** a fallback's 404 info */
  notFound: string | null;
}

/** What every endpoint of one path shares. */
interface PathEntry {
  allow: string;
  template: string;
  cors: boolean;
  render: Endpoint['render'];
  paramPatterns: Readonly<Record<string, RegExp>> | null;
}

export type Router = (method: string, pathname: string) => Located;

/** Where a served path's request goes, written out field by field: a spread of the entry takes V8's slow path, on every request. */
const locatedAt = (entry: PathEntry, endpoint: Endpoint | null, params: Readonly<Record<string, string>>): Located => ({
  endpoint,
  params,
  allow: entry.allow,
  template: entry.template,
  cors: entry.cors,
  render: entry.render,
  notFound: null,
});

const KNOWN_METHODS = new Set(METHODS);

/**
 * One router over every endpoint, registered by method (GET's also under HEAD). Empty segments are
 * ignored (`//latest/` is `/latest`), literal segments win over parameters, and a parameter's
 * pattern that fails leaves the path unmatched. A segment that does not decode to text (bad UTF-8,
 * NUL, a lone surrogate) is 400 whatever the path. A path served under other methods answers with
 * their Allow; one served by none is rendered by the fallback whose prefix it starts with.
 */
export function createRouter(endpoints: readonly Endpoint[], fallbacks: readonly Fallback[] = []): Router {
  const router = FindMyWay({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: MAX_HEADER_BYTES });
  const byPath = new Map<string, Endpoint[]>();
  for (const endpoint of endpoints) byPath.set(endpoint.path, [...(byPath.get(endpoint.path) ?? []), endpoint]);
  const registered = new Set<string>();
  for (const [path, same] of byPath) {
    const methods: string[] = same.map((e) => e.method);
    if (methods.includes('GET')) methods.splice(methods.indexOf('GET') + 1, 0, 'HEAD');
    const entry: PathEntry = {
      allow: [...methods, 'OPTIONS'].join(', '),
      template: same[0]!.template,
      cors: same.every((e) => e.cors),
      render: same[0]!.render,
      paramPatterns: same[0]!.paramPatterns,
    };
    for (const endpoint of same) {
      const under = endpoint.method === 'GET' ? ['GET', 'HEAD'] : [endpoint.method];
      for (const method of under) {
        if (registered.has(`${method} ${path}`)) throw new Error(`Two endpoints for ${method} ${path}`);
        registered.add(`${method} ${path}`);
        router.on(method as 'GET', path, () => undefined, { endpoint, entry });
      }
    }
  }
  const methods = [...new Set(endpoints.map((e) => e.method))];

  const match = (method: string, pathname: string) => {
    const found = KNOWN_METHODS.has(method) ? router.find(method as 'GET', pathname) : null;
    if (found === null) return null;
    const { endpoint, entry } = found.store as { endpoint: Endpoint; entry: PathEntry };
    const params = found.params as Record<string, string>;
    for (const name in entry.paramPatterns) if (!entry.paramPatterns[name]!.test(params[name]!)) return null;
    return { endpoint, entry, params };
  };

  return (method, pathname) => {
    if (pathname.includes('%')) for (const segment of pathname.split('/')) decodePathSegment(segment);
    const found = match(method, pathname);
    if (found) return locatedAt(found.entry, found.endpoint, found.params);
    // Not served under this method: the path's other methods, if any, say what it answers.
    for (const other of methods) {
      const elsewhere = match(other, pathname);
      if (elsewhere) return locatedAt(elsewhere.entry, null, {});
    }
    const fallback = fallbacks.find((f) => pathname.startsWith(f.prefix));
    return {
      endpoint: null,
      params: {},
      allow: '',
      template: 'unmatched',
      cors: fallback === undefined,
      render: fallback?.render ?? null,
      notFound: fallback?.notFound ?? null,
    };
  };
}

/** Finds the request's endpoint, or what stands in for it. */
export function locate(router: Router): Step {
  return (exchange, next) => {
    const located = router(exchange.request.method, exchange.request.url.pathname);
    exchange.endpoint = located.endpoint;
    exchange.route = located.endpoint?.route ?? null;
    exchange.params = located.params;
    exchange.allow = located.allow;
    exchange.template = located.template;
    exchange.cors = located.cors;
    exchange.render = located.render;
    exchange.notFound = located.notFound;
    return next(exchange);
  };
}

/**
 * What no endpoint answers, answered the same way on every surface: a path nothing serves is 404,
 * OPTIONS is 204 with the path's methods (and CORS's preflight headers where CORS applies), any
 * other method the path does not answer is 405 with its Allow.
 */
export function answerMethods(notFound: (exchange: Exchange) => string): Step {
  return (exchange, next) => {
    if (exchange.endpoint) return next(exchange);
    const { allow, request } = exchange;
    if (allow === '') throw new NotFoundError(exchange.notFound ?? notFound(exchange));
    if (request.method === 'OPTIONS') {
      exchange.answer = { status: 204, body: null, headers: exchange.cors ? { ...preflightHeaders(allow), Allow: allow } : { Allow: allow } };
      return Promise.resolve();
    }
    throw new MethodNotAllowedError(allow, `${request.method} is not allowed on ${request.url.pathname}: it answers ${allow}`);
  };
}

/** The endpoint's own steps. */
export const dispatch: Step = (exchange) => exchange.endpoint!.serve(exchange);

export interface PublicEdgeOptions {
  endpoints: readonly Endpoint[];
  /** how the paths under a prefix that nothing serves are refused (the dashboard's page) */
  fallbacks: readonly Fallback[];
  logger: Logger;
  trustedProxies: TrustedProxies;
  usage: Pick<UsageRecorder, 'record'>;
  /** told of every answered request (GET /metrics on the internal port) */
  metrics: { request(answered: AnsweredRequest): void };
}

const unknownEndpoint = (exchange: Exchange) => `Unknown endpoint ${exchange.request.url.pathname}; see the documentation for the endpoints`;

/** The public listener's steps, in the order a request meets them. */
export function publicSteps(options: PublicEdgeOptions): Step[] {
  return [
    requestId,
    observe(options.usage, options.metrics),
    corsHeaders,
    renderRefusals(options.logger),
    locate(createRouter(options.endpoints, options.fallbacks)),
    identifyClient(options.trustedProxies),
    requireHttps,
    answerMethods(unknownEndpoint),
    dispatch,
  ];
}

/** The internal port's steps: its refusals rendered by `render`, its paths routed as the public listener's. */
export function internalSteps(options: { endpoints: readonly Endpoint[]; render: Endpoint['render']; logger: Logger }): Step[] {
  return [
    requestId,
    renderRefusals(options.logger, options.render),
    locate(createRouter(options.endpoints)),
    answerMethods((exchange) => `Nothing is served at ${exchange.request.url.pathname} on the internal port`),
    dispatch,
  ];
}

/** Runs a request through the steps: its answer, with the exchange's headers beside the answer's own. */
export function createPipeline(steps: readonly Step[], logger: Logger): (request: RestRequest) => Promise<Exchange> {
  const run = compose(steps);
  return async (request) => {
    const exchange = new Exchange(request, performance.now());
    try {
      await run(exchange);
    } catch (error) {
      // Last resort, for a fault outside every step's refusals: logged, and answered as one.
      logger.error({ err: error, requestId: exchange.requestId }, 'answering a request failed');
      exchange.answer = envelopeOf(null, exchange);
    }
    return exchange;
  };
}

/** The fetch Response for an exchange's answer. */
function responseOf(exchange: Exchange, stopping: boolean): Response {
  const answer: Answer = exchange.answer!;
  // The answer's headers join the exchange's own object, which nothing reads after this: spreading
  // both into a new object takes V8's slow path, on every request.
  const headers: Record<string, string> = Object.assign(exchange.headers, answer.headers);
  const { body } = answer;
  if (typeof body === 'string') {
    // an answer of text names its type (a page, a script); JSON is the API's
    headers['Content-Type'] ??= 'application/json; charset=utf-8';
    // sent whole with its length, not in chunks (a HEAD answer gives the GET's length)
    headers['Content-Length'] = String(Buffer.byteLength(body));
  } else if (body instanceof Uint8Array) {
    headers['Content-Length'] = String(body.byteLength);
  }
  // Asked when the answer is written, so a request that came in before the stop began closes too.
  if (stopping) headers.Connection = 'close';
  const sent =
    exchange.request.method === 'HEAD' || body === null ? null : body instanceof StreamedBody ? Readable.from(body.chunks(), { objectMode: false }) : body;
  return new Response(sent as BodyInit | null, { status: answer.status, headers });
}

export interface EdgeOptions {
  logger: Logger;
  /** true once the process is stopping: every answer then closes its connection, so no client keeps one to it */
  stopping?: () => boolean;
}

/** A listener's handler: node:http's request listener, and `fetch(request, context)` for tests. */
export function createEdge(steps: readonly Step[], { logger, stopping = () => false }: EdgeOptions) {
  const serve = createPipeline(steps, logger);
  return createServerAdapter<ServerContext>(async (request, context) => {
    const turnRead = endOfTurn();
    const exchange = await serve(new EdgeRequest(request, context));
    await turnRead;
    return responseOf(exchange, stopping());
  });
}

export type Edge = ReturnType<typeof createEdge>;
