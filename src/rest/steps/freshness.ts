// D23 (docs/decisions.md): a rate answer served while the data is stale says so, with
// `X-Data-Stale: true` and the newest rate date in `X-RBA-Source-Date`. Read from the rate history
// the operation itself read, so both describe the same generation.
import { freshnessOf } from '../../domain/freshness.js';
import type { Context } from '../../schema/context.js';
import type { Step } from '../exchange.js';
import type { Route } from '../routes.js';

/** The two headers for an answer of this route made with this context, or none while the data is fresh. */
export async function freshnessHeaders(route: Pick<Route, 'rates'>, context: Context, now: Date): Promise<Record<string, string>> {
  if (!route.rates) return {};
  const { stale, newestRateDate } = freshnessOf(await context.rates.history(), now);
  return stale && newestRateDate !== null ? { 'X-Data-Stale': 'true', 'X-RBA-Source-Date': newestRateDate } : {};
}

export function freshness(clock: () => Date): Step {
  return async (exchange, next) => {
    await next(exchange);
    if (exchange.route!.rates) Object.assign(exchange.answer!.headers, await freshnessHeaders(exchange.route!, exchange.context!, clock()));
  };
}
