// One request's way through the edge (src/edge.ts) and a surface's steps: what the transport read,
// what the steps learn about it on the way in, and the answer they shape on the way out. One object
// per request, of one shape, so the steps stay cheap.
import type { Refused } from '../http/error-status.js';
import type { Peer } from './client-address.js';
import type { CsvBody } from './csv.js';
import type { ApiKeyViewer, Context, SessionViewer } from '../schema/context.js';
import type { PathRoutes } from './router.js';
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
  /** the connection the request came on, one object for all of its requests; null when the transport has none */
  readonly connection: object | null;
  /** the request came over TLS to this process */
  readonly encrypted: boolean;
}

/** What is sent back: shared by identical requests when it comes from the shared answers. */
export interface Answer {
  status: number;
  /** JSON text, or the rows of a CSV answer written as they are produced (src/rest/csv.ts) */
  body: string | CsvBody | null;
  /** headers that belong to the answer itself (Cache-Control, the stale headers, Allow, …) */
  headers: Record<string, string>;
  /** the body's ETag, computed once per answer by the etag step */
  etag?: string;
}

/**
 * A path the edge's router knows (src/edge.ts), and what answers it: a surface's steps, and how the
 * surface renders a refusal (the envelope, or the dashboard's page).
 */
export interface Place {
  /** the path in the router's syntax: `/latest/:currency`, `/dashboard/*` */
  path: string;
  /** the path as metrics name it: `/{date}/{currency}`; `unmatched` for a path nothing serves */
  template: string;
  /** D25 (docs/decisions.md): whether answers carry CORS headers */
  cors: boolean;
  /** on the REST API's paths: the routes of the path */
  routes: PathRoutes | null;
  /** a parameter's pattern its segment must match, or the path is unmatched */
  paramPatterns: Readonly<Record<string, RegExp>> | null;
  /** the surface's steps, after the edge's */
  serve: Next;
  /** the answer for a refusal; null for a fault no step foresaw (logged by the edge) */
  render(refused: Refused | null, exchange: Exchange): Answer;
}

export class Exchange {
  requestId = '';
  /** this request's own headers (X-Request-Id, rate-limit headers, ETag); the answer's are added last */
  readonly headers: Record<string, string> = {};
  peer: Peer | null = null;
  /** D20 (docs/decisions.md): TLS on the socket, or a trusted proxy saying https */
  https = false;
  /** where the router sent the request (src/edge.ts); a step run alone may know only `path` */
  place: Place | null = null;
  /** the routes of the matched REST path */
  path: PathRoutes | null = null;
  params: Readonly<Record<string, string>> = {};
  /** the route for this method */
  route: Route | null = null;
  /** the account behind the API key */
  viewer: ApiKeyViewer | null = null;
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
