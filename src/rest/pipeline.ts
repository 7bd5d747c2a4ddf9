// The REST API as one list of steps (src/rest/steps), each one concern, in the order a request meets
// them once the edge (src/edge.ts) has given it an id, routed it by method, and checked the client
// and D20. The refusals come in the order D11 (docs/decisions.md) gives: method 405 (the edge) →
// authentication 401 → parameters 400 → plan 403 → data 404 → quota and limits 429.
import type { Logger } from 'pino';
import type { Services } from '../services.js';
import type { Executor } from '../schema/executor.js';
import type { KeyAuthenticator } from './auth.js';
import { compose } from './compose.js';
import type { Endpoint, Next, Step } from './exchange.js';
import type { RequestLimits } from './limits.js';
import type { Route } from './route.js';
import { authenticate } from './steps/authenticate.js';
import { readBody } from './steps/body.js';
import { envelopeOf, renderRefusals } from './steps/errors.js';
import { etag } from './steps/etag.js';
import { freshness } from './steps/freshness.js';
import { limits } from './steps/limits.js';
import { quotaStanding } from './steps/quota-standing.js';
import { routeRunner, runOperation } from './steps/operation.js';
import { sharedAnswers } from './steps/shared-answers.js';

export interface RestOptions {
  executor: Executor;
  services: Services;
  keys: KeyAuthenticator;
  documentationUrl: string;
  limits: RequestLimits;
  /** identical read requests share an answer for a second (steps/shared-answers.ts) */
  sharedAnswers: boolean;
}

/** The REST API's endpoints, and what the MCP tools (src/mcp/endpoint.ts) answer their calls with: their twins' steps. */
export function restApi(table: readonly Route[], options: RestOptions & { logger: Logger }) {
  const { services } = options;
  const standing = quotaStanding(options.limits);
  const keyed = [standing, authenticate(options.keys, services)];
  const admit = limits(options.limits);
  // what answers a route once its caller is known and admitted, shared by a REST request and a tool call
  const answer = [
    ...(options.sharedAnswers ? [sharedAnswers(services.clock, () => services.rateHistory.generation)] : []),
    freshness(services.clock),
    readBody,
    runOperation(routeRunner(options.executor, table, options.documentationUrl)),
  ];
  const serve = compose([
    ...keyed,
    admit,
    // inside the limits: the tag hashes the body just after it was written, while it is still in
    // the processor's caches; a 304 still takes its unit (D24)
    etag,
    ...answer,
  ]);
  const endpointOf = (route: Route) => routeEndpoint(route, serve);
  return {
    endpoints: table.map(endpointOf),
    /** for MCP: the key's steps, and each tool call's twin (no ETag: a call has no If-None-Match) */
    twins: {
      authenticate: keyed,
      endpointOf,
      twinSteps: (checkArguments: Step) => compose([renderRefusals(options.logger), standing, checkArguments, admit, ...answer]),
      table,
    },
  };
}

/** A route as the edge's endpoint, answered by `serve`. */
export function routeEndpoint(route: Route, serve: Next): Endpoint {
  return {
    method: route.method,
    path: route.path,
    template: route.path.replace(/:([a-z]+)/gi, '{$1}'),
    // D25 keeps CORS to the data endpoints: the account's own (webhooks, alerts) have none
    cors: route.auth !== 'account',
    auth: route.auth,
    name: route.name,
    paramPatterns: route.paramPatterns ?? null,
    route,
    serve,
    render: envelopeOf,
  };
}
