// The way of a request, from a listener to its answer, for everything the public listener serves:
// the REST API, /docs and /openapi.json, the dashboard (and whatever comes next: a surface is a
// list of places, handed to createEdge by src/app.ts). Read top to bottom:
//
//   1. node:http hands the request to `nodeListener` (the fetch adapter `fetchAdapter`, for tests,
//      builds the same request view). The request target and Host are judged once, by
//      src/http/request-target.ts, for the internal port too (`internalListener`).
//   2. The edge's steps run in order: the request id (D21), observe (usage and metrics, on the way
//      out), locate (one find-my-way router over every surface's paths), CORS (D25), the refusals
//      (every error becomes an answer through the one status table, rendered by the place: the
//      envelope, or the dashboard's page), the client's address, and the HTTPS rule (D20).
//   3. `dispatch` hands the request to its place's own steps (src/rest/pipeline.ts for the API).
//   4. The transport writes the answer: the exchange's headers, the answer's, and its body.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Response, createServerAdapter } from '@whatwg-node/server';
import FindMyWay from 'find-my-way';
import type { Logger } from 'pino';
import { BadRequestError } from './errors.js';
import { MAX_HEADER_BYTES } from './http/limits.js';
import { refusal } from './http/refusal.js';
import { requestIdFrom } from './http/request-id.js';
import { requestUrl } from './http/request-target.js';
import type { AnsweredRequest } from './metrics.js';
import { readLimited } from './rest/body.js';
import type { TrustedProxies } from './rest/client-address.js';
import { compose } from './rest/compose.js';
import { CsvBody } from './rest/csv.js';
import { Exchange, type Place, type RestRequest, type Step } from './rest/exchange.js';
import { decodePathSegment } from './rest/params.js';
import { identifyClient } from './rest/steps/client.js';
import { corsHeaders } from './rest/steps/cors.js';
import { envelopeOf, renderRefusals } from './rest/steps/errors.js';
import { requireHttps } from './rest/steps/https.js';
import { observe } from './rest/steps/observe.js';
import { requestId } from './rest/steps/request-id.js';
import { unknownEndpoint } from './rest/steps/route.js';
import type { UsageRecorder } from './rest/usage.js';

export interface EdgeOptions {
  /** every surface's places; a path in two places is a start-up error */
  places: readonly Place[];
  logger: Logger;
  trustedProxies: TrustedProxies;
  usage: Pick<UsageRecorder, 'record'>;
  /** told of every answered request (GET /metrics on the internal port) */
  metrics: { request(answered: AnsweredRequest): void };
  /** true once the process is stopping: every answer then closes its connection, so no client keeps one to it */
  stopping?: () => boolean;
}

/** A path no surface serves: the API's 404 in the envelope, with CORS as on the data endpoints. */
const UNMATCHED: Place = { path: '', template: 'unmatched', cors: true, routes: null, paramPatterns: null, serve: unknownEndpoint, render: envelopeOf };

export type Router = (pathname: string) => { place: Place; params: Readonly<Record<string, string>> } | null;

/**
 * One router over every place. Empty segments are ignored (`//latest/` is `/latest`, `/docs/` is
 * `/docs`), literal segments win over parameters, and a parameter's pattern that fails leaves the
 * path unmatched. A segment that does not decode to text (bad UTF-8, NUL, a lone surrogate) is 400
 * whatever the path.
 */
export function createRouter(places: readonly Place[]): Router {
  const router = FindMyWay({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: MAX_HEADER_BYTES });
  // Matched by path alone, so every place is filed under one method: each answers methods itself (405 with its Allow).
  for (const place of places) router.on('GET', place.path, () => undefined, place);
  return (pathname) => {
    if (pathname.includes('%')) for (const segment of pathname.split('/')) decodePathSegment(segment);
    const found = router.find('GET', pathname);
    if (found === null) return null;
    const place = found.store as Place;
    const params = found.params as Record<string, string>;
    for (const name in place.paramPatterns) if (!place.paramPatterns[name]!.test(params[name]!)) return null;
    return { place, params };
  };
}

/** Finds the request's place; what a place refuses is thrown later, inside the refusals' step. */
export function locate(router: Router): Step {
  return (exchange, next) => {
    let found: ReturnType<Router>;
    try {
      found = router(exchange.request.url.pathname);
    } catch (error) {
      if (!(error instanceof BadRequestError)) throw error;
      exchange.place = { ...UNMATCHED, serve: () => Promise.reject(error) };
      return next(exchange);
    }
    const place = found?.place ?? UNMATCHED;
    exchange.place = place;
    exchange.path = place.routes;
    if (found) exchange.params = found.params;
    return next(exchange);
  };
}

/** The place's own steps. */
const dispatch: Step = (exchange) => exchange.place!.serve(exchange);

/** The public listener's steps, in the order a request meets them. */
export function edgeSteps(options: EdgeOptions): Step[] {
  return [
    requestId,
    observe(options.usage, options.metrics),
    locate(createRouter(options.places)),
    corsHeaders,
    renderRefusals(options.logger),
    identifyClient(options.trustedProxies),
    requireHttps,
    dispatch,
  ];
}

/** Runs a request through the steps; its answer's headers end up in `headers`, beside the request's own. */
export function createPipeline(steps: readonly Step[]): (request: RestRequest) => Promise<Exchange> {
  const run = compose(steps);
  return async (request) => {
    const exchange = new Exchange(request, performance.now());
    await run(exchange);
    const { headers, answer } = exchange;
    Object.assign(headers, answer!.headers);
    // an answer of text names its type (a page, a script); JSON is the API's, a CSV brings its own
    if (typeof answer!.body === 'string') headers['Content-Type'] ??= 'application/json; charset=utf-8';
    return exchange;
  };
}

/** The public listener's handler and the fetch adapter, both onto the one pipeline. */
export function createEdge(options: EdgeOptions) {
  const serve = createPipeline(edgeSteps(options));
  // eslint-disable-next-line @typescript-eslint/unbound-method -- the adapter's fetch is an arrow function, safe to hand on
  return { node: nodeListener(serve, options.logger, options.stopping ?? (() => false)), fetch: fetchAdapter(serve).fetch };
}

type Serve = (request: RestRequest) => Promise<Exchange>;

/** Node's request, read through a thin view: no Request or Response is built on the listener's path. */
class NodeRequest implements RestRequest {
  constructor(
    private readonly req: IncomingMessage,
    readonly url: URL,
  ) {}
  get method(): string {
    return this.req.method ?? 'GET';
  }
  header(name: string): string | null {
    const value = this.req.headers[name];
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
  }
  repeated(name: string): boolean {
    // Node keeps the first of some repeated fields (Authorization among them) and drops the rest.
    const raw = this.req.rawHeaders;
    let seen = 0;
    for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === name.length && raw[i]!.toLowerCase() === name && ++seen > 1) return true;
    return false;
  }
  body(limit: number): Promise<string> {
    return readLimited(this.req, limit);
  }
  get remoteAddress(): string | undefined {
    return this.req.socket.remoteAddress;
  }
  get connection(): object {
    return this.req.socket;
  }
  get encrypted(): boolean {
    return (this.req.socket as { encrypted?: boolean }).encrypted === true;
  }
}

/**
 * Headers as the flat [name, value, …] list writeHead also takes: Node then writes them as they
 * are rather than storing each one first.
 */
function headerList(headers: Record<string, string>): string[] {
  const list: string[] = [];
  for (const name in headers) list.push(name, headers[name]!);
  return list;
}

/** The request's URL, or null once it has been refused in the envelope (and logged) for its target or Host. */
function acceptedUrl(req: IncomingMessage, res: ServerResponse, logger: Logger): URL | null {
  try {
    return requestUrl(req);
  } catch (error) {
    if (!(error instanceof BadRequestError)) throw error;
    const clientId = req.headers['x-request-id'];
    // The connection is closed after the answer: what follows on it cannot be trusted to start a new request.
    const { status, headers, body } = refusal(error.code, error.message, requestIdFrom(typeof clientId === 'string' ? clientId : null));
    logger.debug({ requestId: headers['X-Request-Id'], target: req.url, status }, 'request target refused');
    res.writeHead(status, headers);
    res.end(body);
    return null;
  }
}

/** The public listener's handler. */
function nodeListener(serve: Serve, logger: Logger, stopping: () => boolean): RequestListener {
  return (req, res) => {
    const url = acceptedUrl(req, res, logger);
    if (!url) return;
    serve(new NodeRequest(req, url)).then(
      ({ answer, headers, request }) => {
        const list = headerList(headers);
        // A text body is sent whole with its length, not in chunks (a HEAD answer gives the GET's length).
        if (typeof answer!.body === 'string') list.push('Content-Length', String(Buffer.byteLength(answer!.body)));
        // Asked when the answer is written, so a request that came in before the stop began closes too.
        if (stopping()) list.push('Connection', 'close');
        res.writeHead(answer!.status, list);
        const body = request.method === 'HEAD' ? null : answer!.body;
        if (body instanceof CsvBody) {
          // Row by row, waiting whenever the socket's buffer is full.
          pipeline(Readable.from(body.rows(), { objectMode: false }), res).catch((error: unknown) => logger.debug({ err: error }, 'a CSV answer was cut off'));
        } else {
          res.end(body ?? undefined);
        }
      },
      (error: unknown) => {
        // Last resort, for a fault no step foresaw: logged, and the connection closed rather than the process.
        logger.error({ err: error }, 'answering a request failed');
        res.destroy();
      },
    );
  };
}

/** What @whatwg-node/server passes along from node:http, or a test in place of a socket. */
export interface FetchContext {
  req?: { socket?: { remoteAddress?: string; encrypted?: boolean } };
}

class FetchRequest implements RestRequest {
  readonly method: string;
  readonly url: URL;
  readonly remoteAddress: string | undefined;
  readonly encrypted: boolean;
  readonly connection: object | null;
  constructor(
    private readonly request: Request,
    context: FetchContext | undefined,
  ) {
    this.method = request.method;
    this.url = new URL(request.url);
    this.remoteAddress = context?.req?.socket?.remoteAddress;
    this.encrypted = context?.req?.socket?.encrypted === true;
    this.connection = context?.req?.socket ?? null;
  }
  header(name: string): string | null {
    return this.request.headers.get(name);
  }
  repeated(name: string): boolean {
    // The fetch API joins repeated fields with ", "; the fields asked about (credentials) hold no comma.
    return this.request.headers.get(name)?.includes(',') === true;
  }
  async body(limit: number): Promise<string> {
    return this.request.body ? readLimited(this.request.body as AsyncIterable<Uint8Array>, limit) : '';
  }
}

/** A CSV body as a byte stream, pulled row by row. */
const csvStream = (body: CsvBody): ReadableStream => Readable.toWeb(Readable.from(body.rows(), { objectMode: false })) as ReadableStream;

/** `fetch(url, init, context)` or `fetch(request, context)`, answered by the same pipeline (for tests). */
function fetchAdapter(serve: Serve) {
  return createServerAdapter<FetchContext>(async (request: Request, context: FetchContext) => {
    const { answer, headers } = await serve(new FetchRequest(request, context));
    const body = request.method === 'HEAD' ? null : answer!.body;
    return new Response(body instanceof CsvBody ? csvStream(body) : body, { status: answer!.status, headers });
  });
}

/**
 * The internal port's handler: the same judgement of the target and Host, then the internal
 * endpoint (src/internal/app.ts) with the target in origin-form (its adapter builds its URL from
 * the Host and the target, and cannot from an absolute one) and an X-Request-Id.
 */
export function internalListener(handler: RequestListener, logger: Logger): RequestListener {
  return (req, res) => {
    const url = acceptedUrl(req, res, logger);
    if (!url) return;
    req.url = url.pathname + url.search;
    const clientId = req.headers['x-request-id'];
    res.setHeader('X-Request-Id', requestIdFrom(typeof clientId === 'string' ? clientId : null));
    handler(req, res);
  };
}
