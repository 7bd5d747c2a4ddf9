// The endpoint itself: the route's schemas read the query, the path and the body (400), the route
// maps what they read to its operation's variables, the operation runs in the schema with the
// viewer (plan 403, data 404) through the one executor (src/schema/executor.ts), and the route maps
// the result to the JSON of docs/api.md.
import type { Executor } from '../../schema/executor.js';
import { ANONYMOUS, type ApiKeyViewer, type Context, type Viewer } from '../../schema/context.js';
import type { Step } from '../exchange.js';
import { stringify, type Json } from '../../json.js';
import { readJsonBody } from '../body.js';
import { decodeQuery, readPathParams, readQuery } from '../params.js';
import { negotiate } from '../representations.js';
import { representationsOf, type Route, type RouteRequest } from '../route.js';

/** What a request gives its route, as sent: the query string, the path's segments and the body. */
export interface SentRequest {
  search: URLSearchParams;
  params: Readonly<Record<string, string>>;
  body: string | null;
}

/**
 * A route's operation run for one request: what the route's schemas read of it, the result's data,
 * and the context it ran with (its rate history is the request's generation).
 */
export type RouteRunner = (
  route: Route,
  sent: SentRequest,
  viewer: ApiKeyViewer | null,
  session?: Viewer | null,
) => Promise<{ request: RouteRequest; data: unknown; context: Context }>;

/**
 * Runs routes' operations: the route's schemas read the query, the path and the body in this order
 * (400), the route maps them to its variables, and the operation runs in the schema with the viewer
 * (plan 403, data 404); the first error is thrown. The REST step below and the MCP tools (src/mcp)
 * answer through it.
 */
export function routeRunner(executor: Executor, table: readonly Route[], documentationUrl: string): RouteRunner {
  executor.check(Object.fromEntries(table.map((route) => [route.name, route.document])));
  return async (route, sent, viewer, session = null) => {
    route.authorize?.({ search: sent.search, viewer });
    const request: RouteRequest = {
      query: readQuery(route.query, sent.search),
      params: readPathParams(route.params, sent.params),
      body: route.body ? readJsonBody(route.body, sent.body!) : {},
      viewer,
      documentationUrl,
    };
    const { data, context } = await executor.run(route.document, route.variables(request), viewer ?? session ?? ANONYMOUS);
    return { request, data, context };
  };
}

export function runOperation(run: RouteRunner): Step {
  return async (exchange) => {
    const route = exchange.route!;
    // What the Accept header asks for is known before the operation runs: one it cannot answer is 406.
    const representation = route.files ? negotiate(exchange.request.header('accept'), representationsOf(route)) : 'json';
    const sent = { search: decodeQuery(exchange.request.url.search), params: exchange.params, body: exchange.body };
    const { request, data, context } = await run(route, sent, exchange.viewer, exchange.session);
    exchange.context = context;
    const headers: Record<string, string> = { 'Cache-Control': route.cacheControl };
    // A route with several representations says so to caches.
    if (route.files) headers.Vary = 'Accept';
    if (representation !== 'json') {
      const file = route.files![representation]!(data, request);
      exchange.answer = { status: 200, body: file, headers: { ...headers, ...file.headers() } };
      return;
    }
    const { body, status = 200 } = route.respond!(data, request);
    // `defineRoute` checked the body against the route's response schema, which is JSON.
    exchange.answer = { status, body: stringify(body as Json), headers };
  };
}
