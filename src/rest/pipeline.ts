// The REST API as one list of steps (src/rest/steps), each one concern, in the order a request meets
// them once the edge (src/edge.ts) has given it an id, routed it, and checked the client and D20.
// The refusals come in the order D11 (docs/decisions.md) gives: method 405 → authentication 401 →
// parameters 400 → plan 403 → data 404 → quota and limits 429.
import type { GraphQLSchema } from 'graphql';
import type { Services } from '../services.js';
import type { KeyAuthenticator } from './auth.js';
import { compose } from './compose.js';
import type { Next, Place, Step } from './exchange.js';
import type { RequestLimits } from './limits.js';
import { pathsOf } from './router.js';
import type { Route } from './route.js';
import { authenticate } from './steps/authenticate.js';
import { readBody } from './steps/body.js';
import { preflight } from './steps/cors.js';
import { envelopeOf } from './steps/errors.js';
import { etag } from './steps/etag.js';
import { freshness } from './steps/freshness.js';
import { limits } from './steps/limits.js';
import { checkMethod } from './steps/method.js';
import { routeRunner, runOperation } from './steps/operation.js';
import { sharedAnswers } from './steps/shared-answers.js';

export interface RestOptions {
  schema: GraphQLSchema;
  services: Services;
  keys: KeyAuthenticator;
  documentationUrl: string;
  limits: RequestLimits;
  /** identical read requests share an answer for a second (steps/shared-answers.ts) */
  sharedAnswers: boolean;
}

export function restSteps(table: readonly Route[], options: RestOptions): Step[] {
  const { services } = options;
  return [
    preflight,
    checkMethod,
    authenticate(options.keys, services),
    limits(options.limits),
    // inside the limits: the tag hashes the body just after it was written, while it is still in
    // the processor's caches; a 304 still takes its unit (D24)
    etag,
    ...(options.sharedAnswers ? [sharedAnswers(services.clock, () => services.rateHistory.generation)] : []),
    freshness(services.clock),
    readBody,
    runOperation(routeRunner(options.schema, table, services, options.documentationUrl)),
  ];
}

/** The API as places of the edge's router: each path of the table, every one answered by the same steps. */
export function restApi(table: readonly Route[], options: RestOptions): Place[] {
  return restPlaces(table, compose(restSteps(table, options)));
}

/** Each path of the table as a place, answered by `serve`. */
export function restPlaces(table: readonly Route[], serve: Next): Place[] {
  return pathsOf(table).map((routes) => ({
    path: routes.routes[0]!.path,
    template: routes.template,
    cors: routes.cors,
    routes,
    paramPatterns: routes.routes[0]!.paramPatterns ?? null,
    serve,
    render: envelopeOf,
  }));
}
