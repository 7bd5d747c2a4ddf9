// The one definition of every public response body (docs/api.md §2, §4.2, §7). The OpenAPI
// document is generated from these (zod's JSON Schema output), and the tests check every response
// the facade gives against that document: a field added to a response without being added here fails.
// Requests are described by the routes' own schemas (src/rest/routes.ts). Every property has a
// description, a sentence for customers: no decision numbers, no repository paths.
import { z } from 'zod';
import { CURRENCY_CODES } from '../../domain/currencies.js';
import { PLANS } from '../../domain/plans.js';

const Code = z.enum(CURRENCY_CODES);
const IsoDate = z.iso.date();
const Instant = z.iso.datetime({ offset: true });
const Success = z.literal(true).meta({ description: 'Always `true` on a successful answer (errors have `false`)' });
const Base = z.literal('AUD').meta({ description: 'Always `AUD`: every rate is quoted against the Australian dollar' });
const Timestamp = z.number().int().meta({ description: 'Unix time (seconds) of 00:00 UTC on the rate date' });

/** A rate: units of the code per 1 AUD, with the RBA's digits (D1, D2). */
const Rate = z.number().positive().meta({ description: 'Units of the currency that 1 AUD buys, with exactly the digits the RBA published' });
export const RatesObject = z
  .partialRecord(Code, Rate)
  .meta({ id: 'Rates', description: 'Currency code → rate; only the codes asked for, and only those published that day' });
const DayRates = RatesObject.meta({ description: 'The rates of the day: currency code → units of it that 1 AUD buys' });

export const RootResponse = z
  .strictObject({
    success: Success,
    message: z.string().meta({ description: 'What the service serves, in a sentence' }),
    documentation: z.url().meta({ description: 'Where this documentation is' }),
    version: z.string().meta({ description: "The service's version" }),
  })
  .meta({ id: 'RootResponse', description: 'What the service is, where its documentation is, and its version' });

export const StatusResponse = z
  .strictObject({
    status: z.enum(['operational', 'degraded']).meta({
      description: '`operational` when the store answers and the rates are current; `degraded` when they are stale or cannot be read',
    }),
    last_update: z
      .union([Instant, z.literal('unknown')])
      .meta({ description: 'When new rates were last stored (an ISO 8601 instant), or `unknown` before the first import' }),
    stale: z.boolean().meta({
      description: 'Whether the newest stored rates are older than the last publication the RBA should have made (with two hours of grace)',
    }),
    next_update_expected: Instant.meta({
      description: 'When the next publication is expected: 4 pm Sydney on the first business day after the newest stored rates',
    }),
  })
  .meta({ id: 'StatusResponse', description: 'Whether the stored rates are current and when the next publication is expected' });

export const SymbolsResponse = z
  .strictObject({
    success: Success,
    symbols: z
      .partialRecord(
        Code,
        z.strictObject({
          name: z.string().meta({ description: "The currency's name in English, such as `US Dollar`" }),
          symbol: z.string().meta({ description: 'Its usual symbol, such as `US$`' }),
          country: z.string().meta({ description: 'The country or region that uses it' }),
        }),
      )
      .meta({ description: 'Every supported code (AUD and the trade-weighted index TWI among them) with its name, symbol and country' }),
    count: z.number().int().min(0).meta({ description: 'How many codes `symbols` lists' }),
    base: Base,
    note: z.string().meta({ description: 'How the rates are quoted, in a sentence' }),
  })
  .meta({ id: 'SymbolsResponse', description: 'The supported codes, each with its name, symbol and country' });

export const ConversionResponse = z
  .strictObject({
    success: Success,
    free: z.literal(true).optional().meta({ description: 'Present, and `true`, only on a conversion made without a key (free mode)' }),
    query: z
      .strictObject({
        from: Code.meta({ description: 'The currency converted from, in upper case' }),
        to: Code.meta({ description: 'The currency converted to, in upper case' }),
        amount: z.number().positive().meta({ description: 'The amount converted, as sent' }),
      })
      .meta({ description: 'What was asked for' }),
    info: z
      .strictObject({
        rate: z.number().meta({ description: 'Units of `to` per unit of `from`, rounded half away from zero to 6 decimal places' }),
        timestamp: z.number().int().meta({ description: 'Unix time (seconds) of 00:00 UTC on `date`' }),
      })
      .meta({ description: 'The rate applied' }),
    date: IsoDate.meta({ description: 'The day whose rates were applied: the newest on or before the date asked for on which both codes have a rate' }),
    result: z.number().meta({ description: 'The amount times the unrounded rate, rounded half away from zero to 4 decimal places' }),
  })
  .meta({ id: 'ConversionResponse', description: 'A conversion and the rate it used' });

export const RatesResponse = z
  .strictObject({
    success: Success,
    timestamp: Timestamp,
    base: Base,
    date: IsoDate.meta({ description: 'The rate day answered (YYYY-MM-DD, a Sydney date)' }),
    requested_date: IsoDate.optional().meta({ description: 'With `fallback` on /{date}: the date asked for, `date` being the rate day used' }),
    rates: DayRates,
  })
  .meta({ id: 'RatesResponse', description: 'The rates of one day' });

export const TimeSeriesResponse = z
  .strictObject({
    success: Success,
    timeseries: z.literal(true).meta({ description: 'Always `true`: this is a time series' }),
    start_date: IsoDate.meta({ description: 'The first day of the range, as asked' }),
    end_date: IsoDate.meta({ description: 'The last day of the range, as asked' }),
    base: Base,
    rates: z.record(IsoDate, RatesObject).meta({ description: 'Date → the rates of that day; only days with data, ascending: no weekends, no holidays' }),
  })
  .meta({ id: 'TimeSeriesResponse', description: 'The rates of each day with data in the range' });

const Figures = z
  .strictObject({
    start_rate: Rate.meta({ description: 'Its rate on the first day of the range that has one' }),
    end_rate: Rate.meta({ description: 'Its rate on the last day of the range that has one' }),
    change: z.number().meta({ description: '`end_rate − start_rate`, exact' }),
    change_pct: z.number().meta({ description: '`change / start_rate × 100`, rounded half away from zero to 6 decimal places' }),
    min: Rate.meta({ description: 'Its lowest rate in the range' }),
    max: Rate.meta({ description: 'Its highest rate in the range' }),
    mean: Rate.meta({ description: 'The mean of its rates in the range, rounded half away from zero to 6 decimal places' }),
    days: z.number().int().positive().meta({ description: 'How many days of the range carry a rate for the code' }),
  })
  .meta({ id: 'Fluctuation' });

export const FluctuationResponse = z
  .strictObject({
    success: Success,
    fluctuation: z.literal(true).meta({ description: 'Always `true`: this is a fluctuation' }),
    start_date: IsoDate.meta({ description: 'The first day of the range, as asked' }),
    end_date: IsoDate.meta({ description: 'The last day of the range, as asked' }),
    base: Base,
    rates: z.partialRecord(Code, Figures).meta({ description: 'Currency code → its figures; a code without a rate in the range is left out' }),
  })
  .meta({ id: 'FluctuationResponse', description: 'The field names of fixer.io’s /fluctuation, plus min, max, mean and days' });

const Message = z.string().meta({ description: 'What happened, in a sentence for people' });
const HttpStatus = z.number().int().min(0).max(999); // three digits, as HTTP writes a status

const Subscription = z.strictObject({
  id: z.string().meta({ description: "The subscription's id: 32 lower-case hex characters" }),
  url: z.url().meta({ description: 'The HTTPS URL deliveries are sent to' }),
  currencies: z.array(Code).meta({ description: 'The codes each delivery carries (every code when none were named)' }),
  description: z.string().nullable().meta({ description: 'Your own note, or null' }),
});
const ListedSubscription = Subscription.extend({
  isActive: z.boolean().meta({ description: 'Whether deliveries are sent: false once paused or after 10 failures in a row' }),
  failureCount: z.number().int().min(0).meta({ description: 'Failed delivery attempts in a row since the last success (test deliveries are not counted)' }),
  lastSuccessAt: Instant.nullable().meta({ description: 'When a delivery last succeeded; null until one does' }),
  createdAt: Instant.meta({ description: 'When the subscription was made' }),
}).meta({ id: 'WebhookSubscription', description: 'A subscription as listed, with its delivery health' });

export const CreateSubscriptionResponse = z
  .strictObject({
    success: Success,
    signingSecret: z
      .string()
      .regex(/^whsec_/)
      .meta({ description: 'The secret that signs every delivery (`X-ExchangeRates-Signature`): shown this once, store it now' }),
    warning: z.string().meta({ description: 'A reminder that the signing secret is not shown again' }),
    subscription: Subscription.meta({ description: 'The subscription made' }),
  })
  .meta({ id: 'CreateWebhookSubscriptionResponse', description: 'The signing secret is shown this once' });
export const SubscriptionListResponse = z
  .strictObject({
    success: Success,
    subscriptions: z.array(ListedSubscription).meta({ description: "The account's subscriptions" }),
    limit: z.number().int().min(0).meta({ description: 'How many subscriptions the plan allows' }),
  })
  .meta({ id: 'WebhookSubscriptionList' });
export const DeleteSubscriptionResponse = z.strictObject({ success: Success, message: Message }).meta({ id: 'DeleteWebhookSubscriptionResponse' });
export const UpdateSubscriptionResponse = z
  .strictObject({ success: Success, subscription: ListedSubscription.meta({ description: 'The subscription as it now is' }) })
  .meta({ id: 'UpdateWebhookSubscriptionResponse' });
export const TestDeliveryResponse = z
  .strictObject({
    success: z.boolean().meta({ description: 'Whether the subscriber acknowledged with a 2xx' }),
    responseStatus: HttpStatus.meta({ description: 'The HTTP status the subscriber answered; 0 when it gave no answer' }),
    message: Message,
  })
  .meta({ id: 'TestDeliveryResponse' });

const Alert = z
  .strictObject({
    id: z
      .string()
      .regex(/^[0-9a-f]{32}$/)
      .meta({ description: "The alert's id: 32 lower-case hex characters" }),
    currency: Code.meta({ description: 'The code watched' }),
    condition: z.enum(['above', 'below', 'change_pct']).meta({
      description: 'When it fires: `above` or `below` crosses `value`, `change_pct` moves by at least `value` per cent in a day',
    }),
    value: z.number().positive().meta({ description: 'A rate level (A$1 = value units) for above and below; a percentage for change_pct' }),
    channels: z
      .array(z.enum(['email', 'webhook']))
      .min(1)
      .meta({ description: 'How a firing is sent: an e-mail to the account, a delivery to its webhook subscriptions, or both' }),
    description: z.string().nullable().meta({ description: 'Your own note, or null' }),
    isActive: z.boolean().meta({ description: 'Whether it is checked at each publication; false while paused' }),
    lastTriggeredAt: Instant.nullable().meta({ description: 'When it last fired; null until it fires' }),
    triggerCount: z.number().int().min(0).meta({ description: 'Firings so far; tests are not counted' }),
    createdAt: Instant.meta({ description: 'When the alert was made' }),
  })
  .meta({ id: 'Alert' });
export const AlertResponse = z.strictObject({ success: Success, alert: Alert.meta({ description: 'The alert as it now is' }) }).meta({ id: 'AlertResponse' });
export const AlertListResponse = z
  .strictObject({
    success: Success,
    alerts: z.array(Alert).meta({ description: "The account's alerts" }),
    limit: z.number().int().min(0).meta({ description: 'How many alerts the plan allows' }),
  })
  .meta({ id: 'AlertList' });
export const DeleteAlertResponse = z.strictObject({ success: Success, message: Message }).meta({ id: 'DeleteAlertResponse' });
export const TestAlertResponse = z
  .strictObject({
    success: z.boolean().meta({ description: 'Whether every channel took its sample' }),
    email: z
      .strictObject({
        to: z.string().meta({ description: 'The address the sample went to' }),
        sent: z.boolean().meta({ description: 'Whether the mail server took it' }),
        message: Message,
      })
      .nullable()
      .meta({ description: 'The sample e-mail; null without the email channel' }),
    webhooks: z
      .array(
        z.strictObject({
          subscriptionId: z.string().meta({ description: 'The subscription the sample went to' }),
          url: z.url().meta({ description: "The subscription's URL" }),
          delivered: z.boolean().meta({ description: 'Whether the receiver acknowledged with a 2xx' }),
          responseStatus: HttpStatus.meta({ description: "The receiver's HTTP status; 0 when it gave no answer" }),
          message: Message,
        }),
      )
      .meta({ description: "One signed rates.test delivery per active subscription covering the alert's currency" }),
  })
  .meta({ id: 'TestAlertResponse' });

const DeliveryAttempt = z
  .strictObject({
    at: z.iso.datetime().meta({ description: 'When the attempt was made' }),
    status: HttpStatus.nullable().meta({ description: "The receiver's HTTP status; null when it gave none" }),
    error: z.string().nullable().meta({ description: 'A short reason when the attempt failed; null otherwise' }),
    durationMs: z.number().int().min(0).meta({ description: 'How long the attempt took, in milliseconds' }),
  })
  .meta({ id: 'WebhookDeliveryAttempt' });
const DeliveryState = z.enum(['delivered', 'pending', 'failed', 'abandoned']).meta({
  description:
    'Where it stands: `delivered`; `pending`: an attempt is due; `failed`: the last attempt (a test or a redelivery) failed and none is planned; `abandoned`: the retries ran out or the subscription was turned off',
});
const Delivery = z
  .strictObject({
    id: z.uuid().meta({ description: 'The X-ExchangeRates-Delivery id, the same on every attempt' }),
    event: z.enum(['rates.published', 'rates.test', 'rates.alert']).meta({ description: 'The X-ExchangeRates-Event of the delivery' }),
    date: IsoDate.meta({ description: "The payload's rate date" }),
    state: DeliveryState,
    attempts: z.array(DeliveryAttempt).meta({ description: 'Every attempt, oldest first' }),
  })
  .meta({ id: 'WebhookDelivery' });
export const DeliveryListResponse = z
  .strictObject({
    success: Success,
    deliveries: z.array(Delivery).meta({ description: 'The deliveries of the last 30 days, newest first, at most 50' }),
    nextCursor: z.string().nullable().meta({ description: 'Pass as `cursor` for the next page; null at the end' }),
  })
  .meta({ id: 'WebhookDeliveryList' });
export const RedeliverResponse = z
  .strictObject({
    success: z.boolean().meta({ description: 'Whether the receiver acknowledged this attempt with a 2xx' }),
    delivery: Delivery.pick({ id: true, state: true, attempts: true }).meta({ description: 'The delivery, with this attempt last' }),
  })
  .meta({ id: 'RedeliverResponse' });

/** The error envelope (docs/api.md §7), narrowed to one status and the types a route can answer with it. */
export function errorEnvelope(status: number, types: readonly [string, ...string[]]) {
  return z.strictObject({
    success: z.literal(false).meta({ description: 'Always `false` on an error' }),
    error: z
      .strictObject({
        code: z.literal(status).meta({ description: 'The HTTP status, again' }),
        type: z.enum(types).meta({ description: 'What went wrong, as a name a program can test' }),
        info: z.string().meta({ description: 'What went wrong and what to do, for people to read' }),
      })
      .meta({ description: 'What went wrong' }),
  });
}

/** The figures of one code over a period (GET /averages). */
const AverageFigures = z
  .strictObject({
    mean: Rate.meta({ description: 'The exact mean of its values in the period, rounded half away from zero to 6 decimal places' }),
    days: z.number().int().positive().meta({ description: 'How many rate days of the period carry a value for the code' }),
    first_date: IsoDate.meta({ description: 'The first rate day of the period with a value' }),
    last_date: IsoDate.meta({ description: 'The last rate day of the period with a value' }),
    end_rate: Rate.meta({ description: 'The value on `last_date`: the nearest actual rate at the end of the period' }),
    min: Rate.meta({ description: 'Its lowest value in the period' }),
    max: Rate.meta({ description: 'Its highest value in the period' }),
  })
  .meta({ id: 'AverageFigures' });

const AverageRates = z
  .partialRecord(Code, AverageFigures)
  .meta({ description: 'Currency code → its figures; a code without a value in the period is left out' });

export const AveragesResponse = z
  .strictObject({
    success: Success,
    averages: z.literal(true).meta({ description: 'Always `true`: these are period averages' }),
    period: z.string().nullable().meta({ description: 'The period asked for, in upper case (`FY2025`), or null for a custom range' }),
    start_date: IsoDate.meta({ description: 'The first day of the period' }),
    end_date: IsoDate.meta({ description: 'The last day of the period, even while it runs' }),
    complete: z.boolean().meta({ description: 'False while the last day of the period is today or later (Sydney time)' }),
    base: Base,
    rates: AverageRates,
    months: z
      .record(z.string().regex(/^\d{4}-\d{2}$/), AverageRates)
      .optional()
      .meta({ description: 'With `interval=month`: each calendar month of the period (`YYYY-MM`, clipped to it), ascending' }),
  })
  .meta({ id: 'AveragesResponse' });

export const CalendarResponse = z
  .strictObject({
    success: Success,
    start_date: IsoDate.meta({ description: 'The first day of the range' }),
    end_date: IsoDate.meta({ description: 'The last day of the range' }),
    timezone: z.literal('Australia/Sydney').meta({ description: 'Dates are Sydney dates; the RBA publishes at about 4 pm there' }),
    rate_days: z.array(IsoDate).meta({
      description: 'Ascending: up to `newest_rate_date`, the days whose rates are stored; after it, the business days a publication is expected on',
    }),
    closed: z
      .array(
        z.strictObject({
          date: IsoDate.meta({ description: 'The closed weekday' }),
          name: z.string().meta({ description: 'The holiday, in English: `Christmas Day`, `Bank Holiday`' }),
        }),
      )
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
    success: Success,
    plan: z.enum(PLANS).meta({ description: "The account's plan" }),
    period_start: Instant.meta({ description: 'When the quota period began (on Free: when the account was made)' }),
    period_end: Instant.nullable().meta({ description: 'When the count resets, as `X-RateLimit-Reset`; null on Free, whose allowance never resets' }),
    limit: Count.meta({ description: 'The quota, as `X-RateLimit-Limit-Monthly`' }),
    used: Count.meta({ description: "The account's counted requests this period, all its keys together" }),
    remaining: Count.meta({ description: "As `X-RateLimit-Remaining-Monthly`: what is left of the quota, or of the key's cap when that is less" }),
    key: z
      .strictObject({
        prefix: z.string().meta({ description: 'The prefix of the key asking' }),
        monthly_cap: Count.nullable().meta({ description: "The key's monthly cap; null without one" }),
        used: Count.meta({ description: "The key's counted requests this period" }),
      })
      .meta({ description: 'The key asking: its prefix, its cap and its own use' }),
    endpoints: z.record(z.string(), Count).meta({
      description: "Each endpoint's counted requests this period (`latest`, `historical`, `timeseries`, `convert`, `fluctuation`, `averages`, `export`, `mcp`)",
    }),
  })
  .meta({ id: 'UsageResponse', description: "Where the key's account stands this quota period" });
