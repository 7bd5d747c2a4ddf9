// A subscription's delivery log and redelivery by hand (D42 in docs/decisions.md): the deliveries
// of the last 30 days, test deliveries included, and one new attempt of any of them.
import {
  findRecentDelivery,
  listDeliveryLog,
  recordRedelivery,
  type DeliveryLogPosition,
  type LoggedAttempt,
  type LoggedDelivery,
} from '../db/delivery-log.js';
import { BadRequestError, NotFoundError } from '../errors.js';
import { RESPONSE_BODY_KEPT_BYTES } from '../webhooks/send.js';
import { signedDelivery } from '../webhooks/sign.js';
import { builder } from './builder.js';
import { checkWebhooksAvailable } from './plan-rules.js';
import { ownSubscription, requireActiveSubscriber } from './webhook-subscription.js';

/** How long deliveries stay in the log and may be redelivered; older ones are pruned. */
export const DELIVERY_LOG_DAYS = 30;
const DELIVERY_LOG_MS = DELIVERY_LOG_DAYS * 24 * 3_600_000;
const PAGE_SIZE = 50;
const DELIVERY_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const CURSOR = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z) ([0-9a-f-]{36})$/;

/** The cursor is opaque to clients: the last listed delivery's position, base64url-encoded. */
function encodeCursor(delivery: LoggedDelivery): string {
  return Buffer.from(`${delivery.createdAt.toISOString()} ${delivery.id}`).toString('base64url');
}

function decodeCursor(cursor: string): DeliveryLogPosition {
  const match = /^[A-Za-z0-9_-]{1,200}$/.test(cursor) ? CURSOR.exec(Buffer.from(cursor, 'base64url').toString('latin1')) : null;
  const createdAt = match ? new Date(match[1]!) : null;
  if (!match || !createdAt || Number.isNaN(createdAt.getTime())) {
    throw new BadRequestError('Invalid cursor: pass the nextCursor of the previous page as it was given');
  }
  return { createdAt, id: match[2]! };
}

const DeliveryStateEnum = builder.enumType('WebhookDeliveryState', { values: ['delivered', 'pending', 'failed', 'abandoned'] as const });

const LoggedAttemptRef = builder.objectRef<LoggedAttempt>('WebhookDeliveryAttempt').implement({
  description: 'One attempt of a delivery',
  fields: (t) => ({
    at: t.expose('at', { type: 'DateTime' }),
    status: t.exposeInt('status', { nullable: true, description: "The receiver's HTTP status; null when it gave none" }),
    error: t.exposeString('error', { nullable: true, description: 'A short reason when the attempt failed' }),
    durationMs: t.exposeInt('durationMs'),
    requestBody: t.exposeString('requestBody', { description: 'The body sent' }),
    responseBody: t.exposeString('responseBody', {
      nullable: true,
      description: `The first ${RESPONSE_BODY_KEPT_BYTES} bytes of the receiver's answer, as UTF-8 text; null when it gave none`,
    }),
  }),
});

const LoggedDeliveryRef = builder.objectRef<LoggedDelivery>('WebhookDelivery').implement({
  description: 'One delivery to a subscription, with its attempts (D42)',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'The X-ExchangeRates-Delivery id, the same on every attempt' }),
    event: t.exposeString('event', { description: 'rates.published, rates.alert or rates.test' }),
    date: t.expose('date', { type: 'LocalDate', description: "The payload's rate date" }),
    state: t.expose('state', { type: DeliveryStateEnum }),
    attempts: t.field({ type: [LoggedAttemptRef], description: 'Oldest first', resolve: (d) => d.attempts }),
  }),
});

const DeliveryPageRef = builder.objectRef<{ deliveries: LoggedDelivery[]; nextCursor: string | null }>('WebhookDeliveryPage').implement({
  fields: (t) => ({
    deliveries: t.field({ type: [LoggedDeliveryRef], resolve: (p) => p.deliveries }),
    nextCursor: t.exposeString('nextCursor', { nullable: true, description: 'The next page; null at the end' }),
  }),
});

builder.queryField('webhookDeliveries', (t) =>
  t.field({
    type: DeliveryPageRef,
    description: `A subscription's deliveries of the last ${DELIVERY_LOG_DAYS} days, test deliveries included, newest first, ${PAGE_SIZE} a page`,
    args: { id: t.arg({ type: 'Text', required: true }), cursor: t.arg({ type: 'Text' }) },
    authScopes: { apiKey: true, session: true },
    resolve: async (_root, { id, cursor }, ctx) => {
      const after = cursor === null || cursor === undefined ? null : decodeCursor(cursor);
      const subscription = await ownSubscription(ctx, id);
      const since = new Date(ctx.services.clock().getTime() - DELIVERY_LOG_MS);
      const rows = await listDeliveryLog(ctx.services.db, subscription.id, since, { after, limit: PAGE_SIZE + 1 });
      const deliveries = rows.slice(0, PAGE_SIZE);
      return { deliveries, nextCursor: rows.length > PAGE_SIZE ? encodeCursor(deliveries.at(-1)!) : null };
    },
  }),
);

builder.mutationField('redeliverWebhookDelivery', (t) =>
  t.field({
    type: LoggedDeliveryRef,
    description: `Attempts a delivery of the last ${DELIVERY_LOG_DAYS} days once more now, with the same body and id, signed with the current secret`,
    args: { id: t.arg({ type: 'Text', required: true }), deliveryId: t.arg({ type: 'Text', required: true }) },
    authScopes: { apiKey: true, session: true },
    resolve: async (_root, { id, deliveryId }, ctx) => {
      checkWebhooksAvailable(requireActiveSubscriber(ctx).plan); // D11: plan (403) before data (404)
      const subscription = await ownSubscription(ctx, id);
      const { db, clock, webhooks, metrics } = ctx.services;
      const since = new Date(clock().getTime() - DELIVERY_LOG_MS);
      const delivery = DELIVERY_ID.test(deliveryId) ? await findRecentDelivery(db, subscription.id, deliveryId, since) : undefined;
      if (!delivery) {
        throw new NotFoundError(`No delivery ${deliveryId} of webhook subscription ${id} in the last ${DELIVERY_LOG_DAYS} days that can be redelivered`);
      }
      const secret = webhooks.box.open(subscription.secret_ciphertext);
      const started = performance.now();
      const result = await webhooks.send(signedDelivery(subscription.url, delivery.event, delivery.id, delivery.payload, secret));
      const durationMs = performance.now() - started;
      metrics.webhookAttempt(result.ok ? 'delivered' : 'failed', durationMs / 1000);
      await recordRedelivery(db, {
        deliveryId: delivery.id,
        event: delivery.event,
        subscriptionId: subscription.id,
        rateDate: delivery.rate_date,
        ok: result.ok,
        status: result.status,
        error: result.error,
        at: clock(),
        durationMs: Math.round(durationMs),
        requestBody: delivery.payload,
        responseBody: result.responseBody,
      });
      const [logged] = await listDeliveryLog(db, subscription.id, since, { deliveryId: delivery.id });
      if (!logged) throw new NotFoundError(`Webhook subscription ${id} was deleted during the redelivery`);
      return logged;
    },
  }),
);
