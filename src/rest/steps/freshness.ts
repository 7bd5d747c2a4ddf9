// D23 (docs/decisions.md): a rate answer served while the data is stale says so, with
// `X-Data-Stale: true` and the newest rate date in `X-RBA-Source-Date`. Read from the rate history
// the operation itself read, so both describe the same generation.
import { freshnessOf } from '../../domain/freshness.js';
import type { Step } from '../exchange.js';

export function freshness(clock: () => Date): Step {
  return async (exchange, next) => {
    await next(exchange);
    if (!exchange.route!.rates) return;
    const { stale, newestRateDate } = freshnessOf(await exchange.context!.rates.history(), clock());
    if (!stale || newestRateDate === null) return;
    const { headers } = exchange.answer!;
    headers['X-Data-Stale'] = 'true';
    headers['X-RBA-Source-Date'] = newestRateDate;
  };
}
