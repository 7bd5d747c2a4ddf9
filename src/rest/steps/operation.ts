// The endpoint itself: the route maps the request to its operation's variables (parameters, 400),
// the operation runs in the schema with the viewer (plan 403, data 404), and the route maps the
// result to the JSON of docs/api.md.
import { validate, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { ANONYMOUS, createContext } from '../../schema/context.js';
import type { Services } from '../../services.js';
import type { Step } from '../exchange.js';
import { stringify } from '../../json.js';
import { decodeQuery } from '../params.js';
import type { Route, RouteRequest } from '../routes.js';

/**
 * Validates and compiles every route's document once, at start-up; a bad one stops the
 * service. The documents never change, so each runs as a compiled function (graphql-jit) rather
 * than being walked again by the interpreter on every request.
 */
export function prepareDocuments(schema: GraphQLSchema, table: readonly Route[]): Map<Route, CompiledQuery> {
  const documents = new Map<Route, CompiledQuery>();
  for (const route of table) {
    const errors = validate(schema, route.document);
    if (errors.length > 0) throw new Error(`Route ${route.name}: ${errors.map((e) => e.message).join('; ')}`);
    const compiled = compileQuery(schema, route.document);
    if (!isCompiledQuery(compiled)) throw new Error(`Route ${route.name}: ${compiled.errors?.map((e) => e.message).join('; ')}`);
    documents.set(route, compiled);
  }
  return documents;
}

export function runOperation(schema: GraphQLSchema, table: readonly Route[], services: Services, documentationUrl: string): Step {
  const documents = prepareDocuments(schema, table);
  return async (exchange) => {
    const route = exchange.route!;
    const { viewer, session } = exchange;
    const request: RouteRequest = { params: exchange.params, search: decodeQuery(exchange.request.url.search), body: exchange.body, viewer, documentationUrl };
    const variables = route.variables(request);
    const context = (exchange.context = createContext(services, viewer ?? session ?? ANONYMOUS));
    const result = await documents.get(route)!.query(undefined, context, variables);
    if (result.errors?.length) throw result.errors[0]!;
    const { body, status = 200 } = route.respond(result.data, request);
    exchange.answer = { status, body: stringify(body), headers: { 'Cache-Control': route.cacheControl } };
  };
}
