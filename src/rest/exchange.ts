// One request's way through the edge (src/edge.ts) and a surface's steps: what the transport read,
// what the steps learn about it on the way in, and the answer they shape on the way out. One object
// per request, of one shape, so the steps stay cheap.
import type { Refused } from '../http/error-status.js';
import type { Peer } from './client-address.js';
import type { StreamedBody } from './streamed-body.js';
import type { ApiKeyViewer, Context, SessionViewer } from '../schema/context.js';
import type { Route } from './route.js';

/** A request as the steps read it, whichever transport brought it (src/edge.ts). */
export interface RestRequest {
  readonly method: string;
  readonly url: URL;
  /** a header's value (repeated ones joined with ", "), or null */
  header(name: string): string | null;
  /** whether the header was sent more than once */
  repeated(name: string): boolean;
  /** the body's bytes as strict UTF-8, refused past `limit` */
  body(limit: number): Promise<string>;
  /** the socket's peer address (loopback when the transport has none) */
  readonly remoteAddress: string | undefined;
  /** the request came over TLS to this process */
  readonly encrypted: boolean;
  /** the fetch Request itself, for an endpoint that hands it on whole (GraphQL, MCP); null for a request made inside the service */
  readonly fetchRequest: Request | null;
}

/** The fetch Request behind a request, for an endpoint that hands it on whole. */
export function fetchRequestOf(request: RestRequest): Request {
  if (request.fetchRequest === null) throw new Error(`${request.method} ${request.url.pathname} has no fetch Request to hand on`);
  return request.fetchRequest;
}

/** What is sent back: shared by identical requests when it comes from the shared answers. */
export interface Answer {
  status: number;
  /** JSON text (or a page's), bytes, or a file's chunks written as they are produced (src/rest/streamed-body.ts) */
  body: string | Uint8Array | StreamedBody | null;
  /** headers that belong to the answer itself (Cache-Control, the stale headers, Allow, …) */
  headers: Record<string, string>;
  /** the body's ETag, computed once per answer by the etag step */
  etag?: string;
}

/** The methods an endpoint is registered under; HEAD is answered by GET's, OPTIONS by the edge. */
export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/**
 * One method on one path, as the edge's router registers it (src/edge.ts), and what answers it: a
 * surface's steps, and how the surface renders a refusal (the envelope, or the dashboard's page).
 */
export interface Endpoint {
  method: Method;
  /** the path in the router's syntax: `/latest/:currency` */
  path: string;
  /** the path as metrics name it: `/{date}/{currency}` */
  template: string;
  /** D25 (docs/decisions.md): whether answers carry CORS headers */
  cors: boolean;
  /** who may ask (src/rest/steps/authenticate.ts): a route's `auth`; 'none' where the surface knows its callers itself */
  auth: Route['auth'];
  /** a parameter's pattern its segment must match, or the path is unmatched */
  paramPatterns: Readonly<Record<string, RegExp>> | null;
  /** on the REST API's endpoints: the route */
  route: Route | null;
  /** how usage names the endpoint's requests (a route's operation name); null: not counted in usage */
  name: string | null;
  /** the surface's steps, after the edge's */
  serve: Next;
  /** the answer for a refusal; null for a fault no step foresaw (logged by the edge) */
  render: (refused: Refused | null, exchange: Exchange) => Answer;
}

/** An endpoint of no REST route (a docs file, a dashboard page, an operator's path): no key, no CORS, not metered by name. */
export const plainEndpoint = (method: Method, path: string, serve: Endpoint['serve'], render: Endpoint['render']): Endpoint => ({
  method,
  path,
  template: path,
  cors: false,
  auth: 'none',
  name: null,
  route: null,
  paramPatterns: null,
  serve,
  render,
});

/** How a surface refuses the paths under `prefix` that nothing serves (the dashboard's 404 page). */
export interface Fallback {
  prefix: string;
  render: Endpoint['render'];
  /** the 404's info */
  notFound: string;
}

export class Exchange {
  requestId = '';
  /** this request's own headers (X-Request-Id, rate-limit headers, ETag); the answer's are added last */
  readonly headers: Record<string, string> = {};
  peer: Peer | null = null;
  /** D20 (docs/decisions.md): TLS on the socket, or a trusted proxy saying https */
  https = false;
  /** where the router sent the request (src/edge.ts); null for a path or method nothing serves */
  endpoint: Endpoint | null = null;
  /** the path's methods, for 405 and OPTIONS (src/edge.ts) */
  allow = '';
  /** the path as metrics name it (`/{date}/{currency}`), whatever the method; `unmatched` for a path nothing serves */
  template = 'unmatched';
  /** D25 (docs/decisions.md): the answer carries CORS headers */
  cors = true;
  /** how a refusal is rendered: the endpoint's, or the surface's under whose prefix the path lies */
  render: Endpoint['render'] | null = null;
  /** the 404's info of the surface under whose prefix an unserved path lies */
  notFound: string | null = null;
  params: Readonly<Record<string, string>> = {};
  /** the REST route of the endpoint */
  route: Route | null = null;
  /** the account behind the API key, once the key may make the request */
  viewer: ApiKeyViewer | null = null;
  /** the key's holder as soon as the key is known, whether or not it may make the request (usage records it) */
  keyHolder: ApiKeyViewer | null = null;
  /** the dashboard session, on the endpoints that take one instead of a key */
  session: SessionViewer | null = null;
  /**
   * What usage and metrics count this request as when its route does not say it: an MCP tool call
   * is `mcp:<tool>` with its twin's status; null leaves a request out of usage (the protocol's own
   * messages). Unset, the route and the answer's status.
   */
  outcome: { name: string; status: number } | null | undefined = undefined;
  /** the raw body of a route that reads one */
  body: string | null = null;
  /** the GraphQL context the operation ran with (its rate history is the request's generation) */
  context: Context | null = null;
  answer: Answer | null = null;
  /** the answer came from the shared answers */
  shared = false;

  constructor(
    readonly request: RestRequest,
    /** performance.now() when the request arrived */
    readonly started: number,
  ) {}
}

/** What a step hands the request on to: the rest of the pipeline. */
export type Next = (exchange: Exchange) => Promise<void>;

/**
 * One concern of the facade, in the style of Koa's and Hono's middleware: it may act on the way in,
 * hand on with `next(exchange)`, and act on the way back. `next` takes the exchange rather than
 * closing over it, so running the pipeline makes no function per request.
 */
export type Step = (exchange: Exchange, next: Next) => Promise<void>;
