// Every answered request is counted: per key for usage analytics (src/rest/usage.ts), and for the
// operators' metrics (GET /metrics on the internal port).
import type { AnsweredRequest } from '../../metrics.js';
import type { Step } from '../exchange.js';
import type { UsageRecorder } from '../usage.js';

export function observe(usage: Pick<UsageRecorder, 'record'>, metrics: { request(answered: AnsweredRequest): void }): Step {
  return async (exchange, next) => {
    await next(exchange);
    const { route, viewer } = exchange;
    const status = exchange.answer!.status;
    // usage is counted per key; a dashboard session's requests have none
    if (viewer && route) usage.record(viewer, route.name, status);
    metrics.request({
      route: exchange.path?.template ?? 'unmatched',
      method: exchange.request.method,
      status,
      seconds: (performance.now() - exchange.started) / 1000,
      cached: exchange.shared,
      refusal: status === 429 ? (viewer ? 'quota' : 'keyless') : null,
    });
  };
}
