// Every answered request is counted: per key for usage analytics (src/rest/usage.ts), keyless
// /convert requests and the pairs /convert answered too, and for the operators' metrics (GET
// /metrics on the internal port).
import type { AnsweredRequest } from '../../metrics.js';
import type { Step } from '../exchange.js';
import type { UsageRecorder } from '../usage.js';

export function observe(usage: Pick<UsageRecorder, 'record'>, metrics: { request(answered: AnsweredRequest): void }): Step {
  return async (exchange, next) => {
    await next(exchange);
    const { endpoint, keyHolder, outcome } = exchange;
    const status = outcome?.status ?? exchange.answer!.status;
    const name = outcome?.name ?? endpoint?.name ?? null;
    // Usage is recorded per key, refusals included; a request that sent no key is handed over
    // without one (the recorder counts only /convert's); one whose key is unknown has no account.
    if (name !== null && outcome !== null && (keyHolder || exchange.request.header('authorization') === null)) {
      usage.record(keyHolder, name, status, exchange.request.url);
    }
    metrics.request({
      route: outcome?.name ?? exchange.template,
      method: exchange.request.method,
      status,
      seconds: (performance.now() - exchange.started) / 1000,
      cached: exchange.shared,
      refusal: status === 429 ? (keyHolder ? 'quota' : 'keyless') : null,
    });
  };
}
