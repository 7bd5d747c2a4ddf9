// D23 (docs/decisions.md): a rate answer served while the data is stale says so, with
// `X-Data-Stale: true` and the newest rate date in `X-RBA-Source-Date`. Read from the rate history
// the operation itself read, so both describe the same generation.
import { freshnessOf } from '../../domain/freshness.js';
import type { RateHistory } from '../../domain/rate-history.js';
import type { Step } from '../exchange.js';

/** The two headers of a rate answer made from this history while it is stale; null while it is fresh. */
export function staleHeaders(history: Pick<RateHistory, 'newestDate' | 'nextDue'>, now: Date): Record<string, string> | null {
  const { stale, newestRateDate } = freshnessOf(history, now);
  return stale && newestRateDate !== null ? { 'X-Data-Stale': 'true', 'X-RBA-Source-Date': newestRateDate } : null;
}

export function freshness(clock: () => Date): Step {
  return async (exchange, next) => {
    await next(exchange);
    if (exchange.route!.rates) Object.assign(exchange.answer!.headers, staleHeaders(await exchange.context!.rates.history(), clock()));
  };
}
