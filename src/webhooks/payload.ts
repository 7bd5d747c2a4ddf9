// The body of a delivery (D27 in docs/decisions.md):
// `{event, date, base, rates, delivery_id, timestamp}`, with rates limited to the subscription's
// currencies and written exactly as the REST API writes them.
import type { WebhookEvent } from '../db/database.js';
import { unixTimestampOfDate } from '../domain/calendar.js';
import { PUBLISHED_CODES } from '../domain/currencies.js';
import { pickRates } from '../domain/rate-history.js';
import { ratesJson, stringify } from '../json.js';

/** `day.rates` as served (canonicalRates): the payload writes them as they are. */
export function deliveryPayload(
  event: WebhookEvent,
  deliveryId: string,
  day: { date: string; rates: Record<string, string> },
  currencies: readonly string[] | null,
): string {
  // A subscription's currencies are delivered in the order of the code list, as /latest writes them.
  const rates =
    currencies === null
      ? day.rates
      : pickRates(
          day.rates,
          PUBLISHED_CODES.filter((code) => currencies.includes(code)),
        );
  return stringify({
    event,
    date: day.date,
    base: 'AUD',
    rates: ratesJson(rates),
    delivery_id: deliveryId,
    // the rate day's timestamp, as in /latest: the same bytes on every retry
    timestamp: unixTimestampOfDate(day.date),
  });
}
