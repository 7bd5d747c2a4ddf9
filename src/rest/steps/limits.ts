// Quotas and limits (src/rest/limits.ts), granted only once the request is known to succeed: D11
// (docs/decisions.md) puts 429 after every other refusal, so a failed request never takes a unit,
// though a keyed one is told where its quota stands.
import type { Step } from '../exchange.js';
import type { RequestLimits } from '../limits.js';

export function limits(requestLimits: Pick<RequestLimits, 'admit' | 'standing'>): Step {
  return async (exchange, next) => {
    try {
      await next(exchange);
    } catch (error) {
      // A keyed request refused (400, 403, 404) still says where its quota stands.
      const { viewer } = exchange;
      if (viewer) Object.assign(exchange.headers, await requestLimits.standing(exchange.route!, viewer));
      throw error;
    }
    Object.assign(exchange.headers, await requestLimits.admit(exchange.route!, exchange.viewer, exchange.peer!.client));
  };
}
