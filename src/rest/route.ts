// One endpoint of the public REST contract as data: its GraphQL operation, the zod schemas that read
// its query, path and body (which also describe them in the OpenAPI document), a mapper from what
// they read to the operation's variables and a mapper from its result to the JSON of docs/api.md.
// The endpoints themselves are in src/rest/routes/, one file per resource; how to add a parameter
// or a route: docs/request-contract.md.
import type { DocumentNode } from 'graphql';
import type { z, ZodType } from 'zod';
import type { TadaDocumentNode } from '../graphql.js';
import type { ApiKeyViewer } from '../schema/context.js';
import type { Json, Written } from '../json.js';
import type { RefusalCode } from '../http/error-status.js';
import type { NamedValues } from './params.js';
import type { FileFormat, Representation } from './representations.js';
import type { StreamedBody } from './streamed-body.js';

/** The path's parameters of a route without a `params` schema: the segments as the router decoded them. */
export type PathSegments = z.ZodObject<Record<string, ZodType<string>>>;

/** A request as its route's mappers see it: the query, the path and the body read by the route's schemas. */
export interface RouteRequest<Query = Record<string, unknown>, Params = Readonly<Record<string, string>>, Body = Record<string, unknown>> {
  query: Query;
  params: Params;
  /** the fields of a route that takes a body, else an empty object */
  body: Body;
  viewer: ApiKeyViewer | null;
  documentationUrl: string;
}

/**
 * One endpoint: its operation (`document`), typed from schema.graphql (src/graphql.ts) by
 * `defineRoute`, so that `variables` must return exactly the document's variables and `respond`
 * reads exactly its result, checked at compile time; what `variables` and `respond` read of the
 * request is typed from the route's zod schemas. The facade holds every route as a plain `Route`
 * and runs only these documents, compiled once at start-up (steps/operation.ts `prepareDocuments`):
 * nothing from a request becomes a document.
 */
export interface Route<
  Result = unknown,
  Variables = Record<string, unknown>,
  Query extends NamedValues = NamedValues,
  Params extends NamedValues = PathSegments,
  Body extends NamedValues = NamedValues,
  Response extends ZodType | null = ZodType | null,
> {
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
  /** the query parameters the route takes (none without it), in the order they are checked and documented */
  query?: Query;
  /** the path's `:name` segments */
  params?: Params;
  /** the fields of a JSON body of at most 16 KiB, read before the variables are mapped; without it the route reads no body */
  body?: Body;
  /**
   * A refusal of the viewer (401) that depends on what the query asks for: run before the
   * parameters are read, as D11 orders the checks.
   */
  authorize?(request: { search: URLSearchParams; viewer: ApiKeyViewer | null }): void;
  /** the answer depends only on the query, the viewer's plan, the stored rates and the time: identical requests may share it briefly */
  cacheable?: boolean;
  /** answers with rates: a stale answer says so (D23 in docs/decisions.md, src/rest/steps/freshness.ts) */
  rates?: boolean;
  document: DocumentNode;
  variables(req: RouteRequest<z.output<Query>, z.output<Params>, z.output<Body>>): Variables;
  /** the JSON success body, which types `respond`'s answer and documents it; null for a route that answers only files */
  response: Response;
  /** the JSON answer; a route without it answers only `files` (the first by default, 406 to an Accept that allows none) */
  respond?(
    data: Result,
    req: RouteRequest<z.output<Query>, z.output<Params>, z.output<Body>>,
  ): { body: Written<Response extends ZodType ? z.output<Response> : never>; status?: number };
  /**
   * the answer as files (CSV, NDJSON, a workbook), for a client whose Accept prefers one of them to
   * JSON (src/rest/representations.ts), in the order they are offered
   */
  files?: Readonly<Partial<Record<FileFormat, (data: Result, req: RouteRequest<z.output<Query>, z.output<Params>, z.output<Body>>) => StreamedBody>>>;
  cacheControl: string;
  /** what the OpenAPI document says of the route beyond its schemas (src/rest/openapi/document.ts) */
  doc?: RouteDoc;
}

export interface RouteDoc {
  summary: string;
  description?: string;
  /**
   * the error types the route answers itself; those of its `auth` (401, 429) and those of every
   * endpoint (400 bad_request, 403 https_required, 503) are added by the document
   */
  errors: readonly RefusalCode[];
  /** statuses other than 200 that answer with a body of their own (not the error envelope) */
  otherResponses?: Readonly<Record<number, ZodType>>;
  example: RouteExample;
}

/**
 * A request and the service's answer to it. The answers of a route that leaves them out here are
 * recorded from the RBA's real data (seed/) in src/rest/openapi/examples.json by
 * test/rest/openapi-examples.test.ts, which also checks every answer against the live service
 * (`npm run docs:examples` records them again). The document shows the answer as the 200's
 * example, and the request's path segments, query parameters and body as the parameters' and the
 * body's examples, so that the docs page sends what the example answers.
 */
export interface RouteExample {
  /** the path and query string, as sent */
  request: string;
  /** the JSON body sent */
  body?: Json;
  /** the JSON answer, given here only when fields of it vary (`varies`); else recorded */
  response?: unknown;
  /** the answer with `Accept: text/csv`; recorded */
  csv?: string;
  /** the answer with `Accept: application/x-ndjson`; recorded */
  ndjson?: string;
  /** the answer's fields that differ from one request or service to another (ids, secrets, times), as dotted paths */
  varies?: readonly string[];
  /**
   * The test that sends such requests instead, when they need what the fixture has not got (a
   * delivery of a publication, and a receiver): its answers are checked against the document's schema
   */
  replayedBy?: string;
}

/** What a route answers, in the order it offers them: JSON (when it has `respond`), then its files. */
export function representationsOf(route: Pick<Route, 'respond' | 'files'>): Representation[] {
  const files = Object.keys(route.files ?? {}) as FileFormat[];
  return route.respond ? ['json', ...files] : files;
}

/** Refuses a `variables` that returns a variable its document does not declare. */
type OnlyDeclared<Returned, Declared> = [Exclude<keyof Returned, keyof Declared>] extends [never]
  ? unknown
  : { variables: 'returns a variable that the document does not declare' };

/**
 * Checks a route against its document (the types come from the document alone), its mappers
 * against its schemas and its answer against its response schema, then hands it on as a plain
 * `Route`: a method's parameters are bivariant, so the typed route is one. The response schema comes
 * first, in a call of its own, so that it is known before the answer is checked: otherwise the
 * compiler widens a literal such as `success: true` while it infers. (An enum value written as a
 * literal in `variables` needs `as const`: TypeScript widens it while it infers.)
 */
export const defineRoute =
  <Response extends ZodType | null>(response: Response) =>
  <
    Result,
    Variables extends Record<string, unknown>,
    Returned extends Variables,
    Query extends NamedValues = NamedValues,
    Params extends NamedValues = PathSegments,
    Body extends NamedValues = NamedValues,
  >(
    route: Omit<Route<NoInfer<Result>, Returned, Query, Params, Body, Response>, 'response'> & {
      document: TadaDocumentNode<Result, Variables>;
    } & OnlyDeclared<Returned, Variables>,
  ): Route =>
    ({ ...route, response }) as unknown as Route;
