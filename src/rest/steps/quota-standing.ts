// Every keyed answer says where the account's quota stands (docs/api.md §8), a refusal's too: a
// request refused after its key was known (a restriction's 403, a 400, the plan's 403, a 404) is
// told the count as it stands, without taking from it (src/rest/monthly-quota.ts, `standing`). A
// 429 says so itself, and a 503 for a store that did not answer says nothing: asking that store for
// the count would keep the client waiting out another bound.
import { StoreUnavailableError } from '../../errors.js';
import { RateLimitedError } from '../../http/http-errors.js';
import type { Step } from '../exchange.js';
import type { RequestLimits } from '../limits.js';

export function quotaStanding(requestLimits: Pick<RequestLimits, 'standing'>): Step {
  return async (exchange, next) => {
    try {
      await next(exchange);
    } catch (error) {
      const { viewer } = exchange;
      if (viewer && !(error instanceof RateLimitedError) && !(error instanceof StoreUnavailableError)) {
        Object.assign(exchange.headers, await requestLimits.standing(exchange.endpoint!, viewer));
      }
      throw error;
    }
  };
}
