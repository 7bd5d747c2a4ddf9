// Every answered request is counted: per key for usage analytics (src/rest/usage.ts), keyless
// /convert requests and the pairs /convert answered too, and for the operators' metrics (GET
// /metrics on the internal port).
import type { AnsweredRequest } from '../../metrics.js';
import type { Step } from '../exchange.js';
import type { UsageRecorder } from '../usage.js';

export function observe(usage: Pick<UsageRecorder, 'record'>, metrics: { request(answered: AnsweredRequest): void }): Step {
  return async (exchange, next) => {
    await next(exchange);
    const { route, viewer, outcome } = exchange;
    const status = outcome?.status ?? exchange.answer!.status;
    // Usage is counted per key; a request that sent no key is handed over without a viewer (the
    // recorder counts only /convert's); one whose key was refused has no account and is not counted.
    if (route && outcome !== null && (viewer || exchange.request.header('authorization') === null)) {
      usage.record(viewer, outcome?.name ?? route.name, status, exchange.request.url);
    }
    metrics.request({
      route: outcome?.name ?? (exchange.place ?? exchange.path)?.template ?? 'unmatched',
      method: exchange.request.method,
      status,
      seconds: (performance.now() - exchange.started) / 1000,
      cached: exchange.shared,
      refusal: status === 429 ? (viewer ? 'quota' : 'keyless') : null,
    });
  };
}
