// The public REST facade: HTTP in, one in-process GraphQL operation per request, the JSON of
// docs/api.md out. The steps between are listed in pipeline.ts; the transports in transport.ts.
import { createPipeline, restSteps, type PipelineOptions } from './pipeline.js';
import { fetchEntry, nodeEntry } from './transport.js';

export type RestAppOptions = PipelineOptions;

export function createRestApp(options: RestAppOptions) {
  const serve = createPipeline(restSteps(options));
  // eslint-disable-next-line @typescript-eslint/unbound-method -- the adapter's fetch is an arrow function, safe to hand on
  return { fetch: fetchEntry(serve).fetch, node: nodeEntry(serve, options.logger) };
}
