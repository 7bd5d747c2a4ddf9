// The endpoint itself: the route's schemas read the query, the path and the body (400), the route
// maps what they read to its operation's variables, the operation runs in the schema with the
// viewer (plan 403, data 404), and the route maps the result to the JSON of docs/api.md.
import { validate, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { ANONYMOUS, createContext, releaseContext, type ApiKeyViewer, type Context, type Viewer } from '../../schema/context.js';
import type { Services } from '../../services.js';
import type { Step } from '../exchange.js';
import { stringify } from '../../json.js';
import { prefersCsv } from '../csv.js';
import { readJsonBody } from '../body.js';
import { decodeQuery, readPathParams, readQuery } from '../params.js';
import type { Route, RouteRequest } from '../route.js';

/**
 * Validates every route's document at start-up (a bad one stops the service) and compiles each one
 * once, on its route's first request. The documents never change, so each runs as a compiled
 * function (graphql-jit) rather than being walked again by the interpreter on every request;
 * compiling on first use keeps that work out of start-up.
 */
export function prepareDocuments(schema: GraphQLSchema, table: readonly Route[]): (route: Route) => CompiledQuery {
  for (const route of table) {
    const errors = validate(schema, route.document);
    if (errors.length > 0) throw new Error(`Route ${route.name}: ${errors.map((e) => e.message).join('; ')}`);
  }
  const documents = new Map<Route, CompiledQuery>();
  return (route) => {
    let compiled = documents.get(route);
    if (!compiled) {
      const result = compileQuery(schema, route.document);
      if (!isCompiledQuery(result)) throw new Error(`Route ${route.name}: ${result.errors?.map((e) => e.message).join('; ')}`);
      documents.set(route, (compiled = result));
    }
    return compiled;
  };
}

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
export function routeRunner(schema: GraphQLSchema, table: readonly Route[], services: Services, documentationUrl: string): RouteRunner {
  const compiledFor = prepareDocuments(schema, table);
  return async (route, sent, viewer, session = null) => {
    route.authorize?.({ search: sent.search, viewer });
    const request: RouteRequest = {
      query: readQuery(route.query, sent.search),
      params: readPathParams(route.params, sent.params),
      body: route.body ? readJsonBody(route.body, sent.body!) : {},
      viewer,
      documentationUrl,
    };
    const variables = route.variables(request);
    const context = createContext(services, viewer ?? session ?? ANONYMOUS);
    let result: Awaited<ReturnType<CompiledQuery['query']>>;
    try {
      result = await compiledFor(route).query(undefined, context, variables);
    } finally {
      releaseContext(context);
    }
    if (result.errors?.length) throw result.errors[0]!;
    return { request, data: result.data, context };
  };
}

export function runOperation(run: RouteRunner): Step {
  return async (exchange) => {
    const route = exchange.route!;
    const sent = { search: decodeQuery(exchange.request.url.search), params: exchange.params, body: exchange.body };
    const { request, data, context } = await run(route, sent, exchange.viewer, exchange.session);
    exchange.context = context;
    const headers: Record<string, string> = { 'Cache-Control': route.cacheControl };
    if (route.csv) {
      // A route with two representations says so to caches.
      headers.Vary = 'Accept';
      if (prefersCsv(exchange.request.header('accept'))) {
        const table = route.csv(data, request);
        exchange.answer = { status: 200, body: table, headers: { ...headers, ...table.headers() } };
        return;
      }
    }
    const { body, status = 200 } = route.respond(data, request);
    exchange.answer = { status, body: stringify(body), headers };
  };
}
