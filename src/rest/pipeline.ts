// The REST facade as one list of steps (src/rest/steps), each one concern, in the order a request
// meets them. The refusals come in the order D11 (docs/decisions.md) gives: method 405 →
// authentication 401 → parameters 400 → plan 403 → data 404 → quota and limits 429.
import type { GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import type { AnsweredRequest } from '../metrics.js';
import type { Services } from '../services.js';
import type { KeyAuthenticator } from './auth.js';
import type { TrustedProxies } from './client-address.js';
import { compose } from './compose.js';
import { Exchange, type RestRequest, type Step } from './exchange.js';
import type { RequestLimits } from './limits.js';
import { routes } from './routes.js';
import { authenticate } from './steps/authenticate.js';
import { readBody } from './steps/body.js';
import { identifyClient } from './steps/client.js';
import { corsHeaders, preflight } from './steps/cors.js';
import { errorEnvelopes } from './steps/errors.js';
import { etag } from './steps/etag.js';
import { freshness } from './steps/freshness.js';
import { requireHttps } from './steps/https.js';
import { limits } from './steps/limits.js';
import { checkMethod } from './steps/method.js';
import { observe } from './steps/observe.js';
import { routeRunner, runOperation } from './steps/operation.js';
import { requestId } from './steps/request-id.js';
import { findRoute } from './steps/route.js';
import { sharedAnswers } from './steps/shared-answers.js';
import type { UsageRecorder } from './usage.js';

export interface PipelineOptions {
  schema: GraphQLSchema;
  services: Services;
  keys: KeyAuthenticator;
  documentationUrl: string;
  logger: Logger;
  limits: RequestLimits;
  usage: UsageRecorder;
  trustedProxies: TrustedProxies;
  /** identical read requests share an answer for a second (steps/shared-answers.ts) */
  sharedAnswers: boolean;
  /** told of every answered request (GET /metrics on the internal port) */
  metrics: { request(answered: AnsweredRequest): void };
}

export function restSteps(options: PipelineOptions): Step[] {
  const { services } = options;
  return [
    requestId,
    observe(options.usage, options.metrics),
    corsHeaders,
    errorEnvelopes(options.logger),
    identifyClient(options.trustedProxies),
    requireHttps,
    findRoute(routes),
    preflight,
    checkMethod,
    authenticate(options.keys, services),
    limits(options.limits),
    // inside the limits: the tag hashes the body just after it was written, not after the quota's
    // wait, when it no longer is in the processor's caches (measured across the varied requests:
    // 3.7 → 2.1 µs to make the body's bytes); a 304 still takes its unit (D24)
    etag,
    ...(options.sharedAnswers ? [sharedAnswers(services.clock, () => services.rateHistory.generation)] : []),
    freshness(services.clock),
    readBody,
    runOperation(routeRunner(options.schema, routes, services, options.documentationUrl)),
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
    // a CSV answer brings its own Content-Type (src/rest/csv.ts)
    if (typeof answer!.body === 'string') headers['Content-Type'] = 'application/json; charset=utf-8';
    return exchange;
  };
}
