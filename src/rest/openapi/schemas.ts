// The one definition of every public response body (docs/api.md §2, §4.2, §7). The OpenAPI
// document is generated from these (zod's JSON Schema output), and the tests check every response
// the facade gives against that document: a field added to a response without being added here fails.
import { z } from 'zod';
import { CURRENCY_CODES } from '../../domain/currencies.js';

const Code = z.enum(CURRENCY_CODES);
const IsoDate = z.iso.date();
const Instant = z.iso.datetime({ offset: true });

/** A rate: units of the code per 1 AUD, with the RBA's digits (D1, D2). */
const Rate = z.number().positive().meta({ description: 'Units of the currency that 1 AUD buys, with the digits the RBA published (D2)' });
export const RatesObject = z
  .partialRecord(Code, Rate)
  .meta({ id: 'Rates', description: 'Currency code → rate; only the codes asked for, and only those published that day (D10)' });

export const RootResponse = z
  .strictObject({ success: z.literal(true), message: z.string(), documentation: z.url(), version: z.string() })
  .meta({ id: 'RootResponse', description: 'docs/api.md §2.9' });

export const StatusResponse = z
  .strictObject({
    status: z.enum(['operational', 'degraded']),
    last_update: z.union([Instant, z.literal('unknown')]),
    stale: z.boolean(),
    next_update_expected: Instant,
  })
  .meta({ id: 'StatusResponse', description: 'docs/api.md §2.8; how it is worked out: D22' });

export const SymbolsResponse = z
  .strictObject({
    success: z.literal(true),
    symbols: z.partialRecord(Code, z.strictObject({ name: z.string(), symbol: z.string(), country: z.string() })),
    count: z.number().int(),
    base: z.literal('AUD'),
    note: z.string(),
  })
  .meta({ id: 'SymbolsResponse', description: 'docs/api.md §2.7' });

export const ConversionResponse = z
  .strictObject({
    success: z.literal(true),
    free: z.literal(true).optional().meta({ description: 'present, and true, only on a conversion made without a key' }),
    query: z.strictObject({ from: Code, to: Code, amount: z.number().positive() }),
    info: z.strictObject({ rate: z.number().meta({ description: 'units of `to` per unit of `from`, 6 dp (D15)' }), timestamp: z.number().int() }),
    date: IsoDate.meta({ description: 'the day whose rates were applied (D9)' }),
    result: z.number().meta({ description: 'rounded half away from zero to 4 dp' }),
  })
  .meta({ id: 'ConversionResponse', description: 'docs/api.md §2.5' });

export const RatesResponse = z
  .strictObject({
    success: z.literal(true),
    timestamp: z.number().int().meta({ description: 'Unix time of 00:00 UTC on the rate date (D5)' }),
    base: z.literal('AUD'),
    date: IsoDate,
    requested_date: IsoDate.optional().meta({ description: 'with `fallback` on /{date}: the date asked for, when `date` is the rate day used' }),
    rates: RatesObject,
  })
  .meta({ id: 'RatesResponse', description: 'docs/api.md §2.4' });

export const TimeSeriesResponse = z
  .strictObject({
    success: z.literal(true),
    timeseries: z.literal(true),
    start_date: IsoDate,
    end_date: IsoDate,
    base: z.literal('AUD'),
    rates: z.record(IsoDate, RatesObject).meta({ description: 'Only days with data, ascending (D8)' }),
  })
  .meta({ id: 'TimeSeriesResponse', description: 'docs/api.md §2.6' });

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
}).meta({ id: 'WebhookSubscription', description: 'docs/api.md §2.11' });

export const CreateSubscriptionRequest = z
  .strictObject({
    url: z.url().max(2048).meta({ description: 'HTTPS, on a public host (D26)' }),
    currencies: z.array(Code).optional().meta({ description: 'left out: every currency' }),
    description: z.string().optional(),
  })
  .meta({ id: 'CreateWebhookSubscriptionRequest' });
export const UpdateSubscriptionRequest = z.strictObject({ isActive: z.boolean() }).meta({ id: 'UpdateWebhookSubscriptionRequest' });

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
    event: z.enum(['rates.published', 'rates.test']),
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
  .meta({
    id: 'WebhookDeliveryList',
    example: {
      success: true,
      deliveries: [
        {
          id: '3b241101-e2bb-4255-8caf-4136c566a962',
          event: 'rates.published',
          date: '2023-01-04',
          state: 'delivered',
          attempts: [
            { at: '2023-01-04T06:00:02.000Z', status: 503, error: 'HTTP 503', durationMs: 84 },
            { at: '2023-01-04T06:01:02.000Z', status: 200, error: null, durationMs: 61 },
          ],
        },
      ],
      nextCursor: null,
    },
  });
export const RedeliverResponse = z
  .strictObject({
    success: z.boolean().meta({ description: 'whether the receiver acknowledged this attempt with a 2xx' }),
    delivery: Delivery.pick({ id: true, state: true, attempts: true }),
  })
  .meta({ id: 'RedeliverResponse' });

/** docs/api.md §7, narrowed to one status and the types a route can answer with it. */
export function errorEnvelope(status: number, types: readonly [string, ...string[]]) {
  return z.strictObject({
    success: z.literal(false),
    error: z.strictObject({ code: z.literal(status), type: z.enum(types), info: z.string().meta({ description: 'for people to read' }) }),
  });
}

/** Query and path parameters, as the facade parses them (src/rest/params.ts). */
export const Param = {
  date: IsoDate.meta({ description: '`YYYY-MM-DD`, a Sydney calendar date from 2018 on', example: '2023-01-03' }),
  code: z
    .string()
    .regex(/^[A-Za-z]{3}$/)
    .meta({ description: 'a currency code of /symbols, in any case (D3)', example: 'USD' }),
  symbols: z
    .string()
    .max(256)
    .regex(/^[A-Za-z, ]+$/)
    .meta({
      description: 'comma-separated currency codes of /symbols, in any case; blanks around a code and repeats are ignored (D4); an unsupported code is 400',
      example: 'USD,EUR',
    }),
  base: z
    .string()
    .regex(/^[Aa][Uu][Dd]$/)
    .meta({ description: 'only `AUD`, the default: every rate is quoted against AUD (D1)' }),
  amount: z.string().max(256).meta({ description: 'a number greater than 0 and at most 1e15, written in decimal (`100`, `12.5`; D14)', example: '100' }),
  id: z.string().max(256).meta({ description: 'the subscription id' }),
  deliveryId: z.string().max(256).meta({ description: 'the delivery id (X-ExchangeRates-Delivery)' }),
  cursor: z.string().max(256).meta({ description: 'the `nextCursor` of the previous page' }),
};

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

/** The parameters of GET /averages beyond those of every range. */
export const AveragesParam = {
  period: z.string().max(256).meta({
    description:
      'a calendar year `2024`, an Australian financial year `FY2025` (1 July 2024 to 30 June 2025), a half `2025-H1`, a quarter `2025-Q3` or a month `2025-06`; letters in any case. Instead of start_date and end_date.',
    example: 'FY2025',
  }),
  interval: z.literal('month').meta({ description: '`month` adds the same figures for each calendar month of the period' }),
};

/** `fallback` of /{date} and /{date}/{currency}. */
export const FallbackParam = z.enum(['previous', 'next']).meta({
  description:
    'a date without rates (for that currency) answers with the nearest rate day before it (`previous`) or after it (`next`); `date` is then the day used and `requested_date` the date asked for. Left out: exactly that date or 404.',
});
