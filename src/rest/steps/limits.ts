// Quotas and limits (src/rest/limits.ts), granted only once the request is known to succeed: D11
// (docs/decisions.md) puts 429 after every other refusal, so a failed request never takes a unit.
import type { Step } from '../exchange.js';
import type { RequestLimits } from '../limits.js';

export function limits(requestLimits: Pick<RequestLimits, 'admit'>): Step {
  return async (exchange, next) => {
    await next(exchange);
    Object.assign(exchange.headers, await requestLimits.admit(exchange.endpoint!, exchange.viewer, exchange.peer!.client));
  };
}
