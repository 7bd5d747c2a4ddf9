// The body of a delivery (D27 in docs/decisions.md):
// `{event, date, base, rates, delivery_id, timestamp}`, with rates limited to the subscription's
// currencies and written exactly as the REST API writes them.
import type { WebhookEvent } from '../db/database.js';
import { unixTimestampOfDate } from '../domain/calendar.js';
import { PUBLISHED_CODES } from '../domain/currencies.js';
import { pickRates } from '../domain/rate-history.js';
import { RawJson, ratesJson, stringify } from '../json.js';
import { changePercent } from '../domain/alerts.js';
import { normalizeDecimal } from '../domain/decimal.js';

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

/** What a `rates.alert` body tells of the alert and its firing. */
export interface AlertFiringPayload {
  alertId: string;
  currency: string;
  condition: string;
  level: string;
  date: string;
  value: string;
  previousDate: string;
  previousValue: string;
}

/**
 * The body of an alert's delivery: `{event, delivery_id, timestamp, alert: {id, currency,
 * condition, value}, date, rate, previous_date, previous_rate, change_pct}`, every number exact
 * (change_pct signed, to 6 places). A test of an alert sends the same body as `rates.test`.
 */
export function alertPayload(event: 'rates.alert' | 'rates.test', deliveryId: string, firing: AlertFiringPayload): string {
  const exact = (text: string) => new RawJson(normalizeDecimal(text));
  return stringify({
    event,
    delivery_id: deliveryId,
    timestamp: unixTimestampOfDate(firing.date),
    alert: { id: firing.alertId, currency: firing.currency, condition: firing.condition, value: exact(firing.level) },
    date: firing.date,
    rate: exact(firing.value),
    previous_date: firing.previousDate,
    previous_rate: exact(firing.previousValue),
    change_pct: new RawJson(changePercent(firing.value, firing.previousValue)),
  });
}
