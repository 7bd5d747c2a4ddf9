// The one definition of every public response body (docs/api.md §2, §4.2, §7). The OpenAPI
// document is generated from these (zod's JSON Schema output), and the tests check every response
// the facade gives against that document: a field added to a response without being added here fails.
// Requests are described by the routes' own schemas (src/rest/routes.ts). The descriptions are for
// customers: no decision numbers, no repository paths.
import { z } from 'zod';
import { CURRENCY_CODES } from '../../domain/currencies.js';
import { PLANS } from '../../domain/plans.js';

const Code = z.enum(CURRENCY_CODES);
const IsoDate = z.iso.date();
const Instant = z.iso.datetime({ offset: true });

/** A rate: units of the code per 1 AUD, with the RBA's digits (D1, D2). */
const Rate = z.number().positive().meta({ description: 'Units of the currency that 1 AUD buys, with exactly the digits the RBA published' });
export const RatesObject = z
  .partialRecord(Code, Rate)
  .meta({ id: 'Rates', description: 'Currency code → rate; only the codes asked for, and only those published that day' });

export const RootResponse = z
  .strictObject({ success: z.literal(true), message: z.string(), documentation: z.url(), version: z.string() })
  .meta({ id: 'RootResponse', description: 'What the service is, where its documentation is, and its version' });

export const StatusResponse = z
  .strictObject({
    status: z.enum(['operational', 'degraded']),
    last_update: z
      .union([Instant, z.literal('unknown')])
      .meta({ description: 'when the newest rates were stored (an ISO 8601 instant), or `unknown` before the first import' }),
    stale: z.boolean(),
    next_update_expected: Instant,
  })
  .meta({ id: 'StatusResponse', description: 'Whether the stored rates are current and when the next publication is expected' });

export const SymbolsResponse = z
  .strictObject({
    success: z.literal(true),
    symbols: z.partialRecord(Code, z.strictObject({ name: z.string(), symbol: z.string(), country: z.string() })),
    count: z.number().int(),
    base: z.literal('AUD'),
    note: z.string(),
  })
  .meta({ id: 'SymbolsResponse', description: 'The supported codes, each with its name, symbol and country' });

export const ConversionResponse = z
  .strictObject({
    success: z.literal(true),
    free: z.literal(true).optional().meta({ description: 'present, and true, only on a conversion made without a key' }),
    query: z.strictObject({ from: Code, to: Code, amount: z.number().positive() }),
    info: z.strictObject({
      rate: z.number().meta({ description: 'units of `to` per unit of `from`, rounded half away from zero to 6 decimal places' }),
      timestamp: z.number().int().meta({ description: 'Unix time of 00:00 UTC on `date`' }),
    }),
    date: IsoDate.meta({ description: 'the day whose rates were applied: the newest on or before the date asked for on which both codes have a rate' }),
    result: z.number().meta({ description: 'rounded half away from zero to 4 dp' }),
  })
  .meta({ id: 'ConversionResponse', description: 'A conversion and the rate it used' });

export const RatesResponse = z
  .strictObject({
    success: z.literal(true),
    timestamp: z.number().int().meta({ description: 'Unix time of 00:00 UTC on the rate date' }),
    base: z.literal('AUD'),
    date: IsoDate,
    requested_date: IsoDate.optional().meta({ description: 'with `fallback` on /{date}: the date asked for, when `date` is the rate day used' }),
    rates: RatesObject,
  })
  .meta({ id: 'RatesResponse', description: 'The rates of one day' });

export const TimeSeriesResponse = z
  .strictObject({
    success: z.literal(true),
    timeseries: z.literal(true),
    start_date: IsoDate,
    end_date: IsoDate,
    base: z.literal('AUD'),
    rates: z.record(IsoDate, RatesObject).meta({ description: 'Only days with data, ascending: no weekends, no holidays' }),
  })
  .meta({ id: 'TimeSeriesResponse', description: 'The rates of each day with data in the range' });

const Figures = z
  .strictObject({
    start_rate: Rate.meta({ description: 'its rate on the first day of the range that has one' }),
    end_rate: Rate.meta({ description: 'its rate on the last day of the range that has one' }),
    change: z.number().meta({ description: 'end_rate − start_rate, exact' }),
    change_pct: z.number().meta({ description: 'change / start_rate × 100, rounded half away from zero to 6 dp' }),
    min: Rate,
    max: Rate,
    mean: Rate.meta({ description: 'rounded half away from zero to 6 dp' }),
    days: z.number().int().positive().meta({ description: 'how many days of the range carry a rate for the code' }),
  })
  .meta({ id: 'Fluctuation' });

export const FluctuationResponse = z
  .strictObject({
    success: z.literal(true),
    fluctuation: z.literal(true),
    start_date: IsoDate,
    end_date: IsoDate,
    base: z.literal('AUD'),
    rates: z.partialRecord(Code, Figures).meta({ description: 'a code without a rate in the range is left out' }),
  })
  .meta({ id: 'FluctuationResponse', description: 'The field names of fixer.io’s /fluctuation, plus min, max, mean and days' });

const Subscription = z.strictObject({
  id: z.string(),
  url: z.url(),
  currencies: z.array(Code),
  description: z.string().nullable(),
});
const ListedSubscription = Subscription.extend({
  isActive: z.boolean(),
  failureCount: z.number().int().min(0),
  lastSuccessAt: Instant.nullable(),
  createdAt: Instant,
}).meta({ id: 'WebhookSubscription', description: 'A subscription as listed, with its delivery health' });

export const CreateSubscriptionResponse = z
  .strictObject({ success: z.literal(true), signingSecret: z.string().regex(/^whsec_/), warning: z.string(), subscription: Subscription })
  .meta({ id: 'CreateWebhookSubscriptionResponse', description: 'The signing secret is shown this once' });
export const SubscriptionListResponse = z
  .strictObject({ success: z.literal(true), subscriptions: z.array(ListedSubscription), limit: z.number().int().min(0) })
  .meta({ id: 'WebhookSubscriptionList' });
export const DeleteSubscriptionResponse = z.strictObject({ success: z.literal(true), message: z.string() }).meta({ id: 'DeleteWebhookSubscriptionResponse' });
export const UpdateSubscriptionResponse = z
  .strictObject({ success: z.literal(true), subscription: ListedSubscription })
  .meta({ id: 'UpdateWebhookSubscriptionResponse' });
export const TestDeliveryResponse = z
  .strictObject({
    success: z.boolean().meta({ description: 'whether the subscriber acknowledged with a 2xx' }),
    responseStatus: z.number().int().meta({ description: 'the HTTP status the subscriber answered; 0 when it gave no answer' }),
    message: z.string(),
  })
  .meta({ id: 'TestDeliveryResponse' });

const Alert = z
  .strictObject({
    id: z.string().regex(/^[0-9a-f]{32}$/),
    currency: Code,
    condition: z.enum(['above', 'below', 'change_pct']),
    value: z.number().positive().meta({ description: 'a rate level (A$1 = value units) for above and below; a percentage for change_pct' }),
    channels: z.array(z.enum(['email', 'webhook'])).min(1),
    description: z.string().nullable(),
    isActive: z.boolean(),
    lastTriggeredAt: Instant.nullable().meta({ description: 'when it last fired; null until it fires' }),
    triggerCount: z.number().int().min(0).meta({ description: 'firings so far; tests are not counted' }),
    createdAt: Instant,
  })
  .meta({ id: 'Alert' });
export const AlertResponse = z.strictObject({ success: z.literal(true), alert: Alert }).meta({ id: 'AlertResponse' });
export const AlertListResponse = z.strictObject({ success: z.literal(true), alerts: z.array(Alert), limit: z.number().int().min(0) }).meta({ id: 'AlertList' });
export const DeleteAlertResponse = z.strictObject({ success: z.literal(true), message: z.string() }).meta({ id: 'DeleteAlertResponse' });
export const TestAlertResponse = z
  .strictObject({
    success: z.boolean().meta({ description: 'whether every channel took its sample' }),
    email: z
      .strictObject({ to: z.string(), sent: z.boolean(), message: z.string() })
      .nullable()
      .meta({ description: 'the sample e-mail; null without the email channel' }),
    webhooks: z
      .array(
        z.strictObject({
          subscriptionId: z.string(),
          url: z.url(),
          delivered: z.boolean(),
          responseStatus: z.number().int().meta({ description: "the receiver's HTTP status; 0 when it gave no answer" }),
          message: z.string(),
        }),
      )
      .meta({ description: "one signed rates.test delivery per active subscription covering the alert's currency" }),
  })
  .meta({ id: 'TestAlertResponse' });

const DeliveryAttempt = z
  .strictObject({
    at: z.iso.datetime(),
    status: z.number().int().nullable().meta({ description: "the receiver's HTTP status; null when it gave none" }),
    error: z.string().nullable().meta({ description: 'a short reason when the attempt failed' }),
    durationMs: z.number().int().min(0),
  })
  .meta({ id: 'WebhookDeliveryAttempt' });
const DeliveryState = z.enum(['delivered', 'pending', 'failed', 'abandoned']).meta({
  description:
    '`pending`: an attempt is due; `failed`: the last attempt (a test or a redelivery) failed and none is planned; `abandoned`: the retries ran out or the subscription was turned off',
});
const Delivery = z
  .strictObject({
    id: z.uuid().meta({ description: 'the X-ExchangeRates-Delivery id, the same on every attempt' }),
    event: z.enum(['rates.published', 'rates.test', 'rates.alert']),
    date: IsoDate.meta({ description: "the payload's rate date" }),
    state: DeliveryState,
    attempts: z.array(DeliveryAttempt).meta({ description: 'oldest first' }),
  })
  .meta({ id: 'WebhookDelivery' });
export const DeliveryListResponse = z
  .strictObject({
    success: z.literal(true),
    deliveries: z.array(Delivery).meta({ description: 'newest first, at most 50' }),
    nextCursor: z.string().nullable().meta({ description: 'pass as `cursor` for the next page; null at the end' }),
  })
  .meta({ id: 'WebhookDeliveryList' });
export const RedeliverResponse = z
  .strictObject({
    success: z.boolean().meta({ description: 'whether the receiver acknowledged this attempt with a 2xx' }),
    delivery: Delivery.pick({ id: true, state: true, attempts: true }),
  })
  .meta({ id: 'RedeliverResponse' });

/** The error envelope (docs/api.md §7), narrowed to one status and the types a route can answer with it. */
export function errorEnvelope(status: number, types: readonly [string, ...string[]]) {
  return z.strictObject({
    success: z.literal(false),
    error: z.strictObject({ code: z.literal(status), type: z.enum(types), info: z.string().meta({ description: 'for people to read' }) }),
  });
}

/** The figures of one code over a period (GET /averages). */
const AverageFigures = z
  .strictObject({
    mean: Rate.meta({ description: 'the exact mean of its values in the period, rounded half away from zero to 6 dp' }),
    days: z.number().int().positive().meta({ description: 'how many rate days of the period carry a value for the code' }),
    first_date: IsoDate.meta({ description: 'the first rate day of the period with a value' }),
    last_date: IsoDate.meta({ description: 'the last rate day of the period with a value' }),
    end_rate: Rate.meta({ description: 'the value on last_date: the nearest actual rate at the end of the period' }),
    min: Rate,
    max: Rate,
  })
  .meta({ id: 'AverageFigures' });

const AverageRates = z.partialRecord(Code, AverageFigures).meta({ description: 'a code without a value in the period is left out' });

export const AveragesResponse = z
  .strictObject({
    success: z.literal(true),
    averages: z.literal(true),
    period: z.string().nullable().meta({ description: 'the period asked for, in upper case (`FY2025`), or null for a custom range' }),
    start_date: IsoDate.meta({ description: 'the first day of the period' }),
    end_date: IsoDate.meta({ description: 'the last day of the period, even while it runs' }),
    complete: z.boolean().meta({ description: 'false while the last day of the period is today or later (Sydney time)' }),
    base: z.literal('AUD'),
    rates: AverageRates,
    months: z
      .record(z.string().regex(/^\d{4}-\d{2}$/), AverageRates)
      .optional()
      .meta({ description: 'with `interval=month`: each calendar month of the period (`YYYY-MM`, clipped to it), ascending' }),
  })
  .meta({ id: 'AveragesResponse' });

export const CalendarResponse = z
  .strictObject({
    success: z.literal(true),
    start_date: IsoDate,
    end_date: IsoDate,
    timezone: z.literal('Australia/Sydney').meta({ description: 'Dates are Sydney dates; the RBA publishes at about 4 pm there' }),
    rate_days: z.array(IsoDate).meta({
      description: 'Ascending: up to `newest_rate_date`, the days whose rates are stored; after it, the business days a publication is expected on',
    }),
    closed: z
      .array(z.strictObject({ date: IsoDate, name: z.string().meta({ description: 'The holiday, in English: `Christmas Day`, `Bank Holiday`' }) }))
      .meta({ description: 'Ascending: the weekdays without rates that are New South Wales public holidays or the NSW Bank Holiday' }),
    missing: z
      .array(IsoDate)
      .meta({ description: 'Ascending: the weekdays up to `newest_rate_date` without stored rates that are no holiday (gaps in the data)' }),
    newest_rate_date: IsoDate.nullable().meta({ description: 'The newest day with stored rates; null before the first import' }),
    next_update_expected: Instant.meta({ description: 'As on /status: the first publication slot after the newest stored rates' }),
  })
  .meta({ id: 'CalendarResponse', description: "The RBA's publication calendar of a range of dates" });

const Count = z.number().int().min(0);

export const UsageResponse = z
  .strictObject({
    success: z.literal(true),
    plan: z.enum(PLANS),
    period_start: Instant.meta({ description: 'When the quota period began (on Free: when the account was made)' }),
    period_end: Instant.nullable().meta({ description: 'When the count resets, as `X-RateLimit-Reset`; null on Free, whose allowance never resets' }),
    limit: Count.meta({ description: 'The quota, as `X-RateLimit-Limit-Monthly`' }),
    used: Count.meta({ description: "The account's counted requests this period, all its keys together" }),
    remaining: Count.meta({ description: "As `X-RateLimit-Remaining-Monthly`: what is left of the quota, or of the key's cap when that is less" }),
    key: z.strictObject({
      prefix: z.string().meta({ description: 'The prefix of the key asking' }),
      monthly_cap: Count.nullable().meta({ description: "The key's monthly cap; null without one" }),
      used: Count.meta({ description: "The key's counted requests this period" }),
    }),
    endpoints: z.record(z.string(), Count).meta({
      description: "Each endpoint's counted requests this period (`latest`, `historical`, `timeseries`, `convert`, `fluctuation`, `averages`, `export`, `mcp`)",
    }),
  })
  .meta({ id: 'UsageResponse', description: "Where the key's account stands this quota period" });
