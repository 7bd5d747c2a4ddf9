// The public REST facade: HTTP in, one in-process GraphQL operation per request, the JSON of
// docs/api.md out. The steps between are listed in pipeline.ts; the transports in transport.ts.
import type { Logger } from 'pino';
import type { Step } from './exchange.js';
import { createPipeline, restSteps, type PipelineOptions } from './pipeline.js';
import { fetchEntry, nodeEntry } from './transport.js';

export type RestAppOptions = PipelineOptions;

/** A list of steps behind both transports: node:http for the listener, fetch for tests. */
export function stepsEntries(steps: readonly Step[], logger: Logger) {
  const serve = createPipeline(steps);
  // eslint-disable-next-line @typescript-eslint/unbound-method -- the adapter's fetch is an arrow function, safe to hand on
  return { fetch: fetchEntry(serve).fetch, node: nodeEntry(serve, logger) };
}

export function createRestApp(options: RestAppOptions) {
  return stepsEntries(restSteps(options), options.logger);
}
