// The webhook subscription endpoints (docs/api.md §4.2) and their delivery log.
import { z } from 'zod';
import { graphql } from '../../graphql.js';
import { Field } from '../body.js';
import * as Schemas from '../openapi/schemas.js';
import { Param } from '../params.js';
import { defineRoute } from '../route.js';

const SUBSCRIPTION_ID = z.object({ id: Param.id });

const SUBSCRIPTIONS = '/api/webhook-subscriptions';
/** The list fields of docs/api.md §2.11, in its order. */
const SUBSCRIPTION_FIELDS = 'id url currencies description isActive failureCount lastSuccessAt createdAt';
const DELIVERY_FIELDS = 'id event date state attempts { at status error durationMs }';
type DeliveryEvent = z.output<typeof Schemas.DeliveryListResponse>['deliveries'][number]['event'];
/** A GraphQL enum value cannot hold a dot, so the schema gives a delivery's event as a string; it is always one of the three. */
const loggedDelivery = <Delivery extends { event: string }>(delivery: Delivery) => ({ ...delivery, event: delivery.event as DeliveryEvent });

/** The subscription of the examples (in a request's path, the test puts the id of one it created in its place). */
export const EXAMPLE_ID = '5f0c7e1a9b3d4c2e8a6f1b0d3e7c9a24';
const EXAMPLE_SUBSCRIPTION = {
  id: EXAMPLE_ID,
  url: 'https://hooks.example.com/rates',
  currencies: ['USD', 'EUR'],
  description: 'treasury',
  isActive: true,
  failureCount: 0,
  lastSuccessAt: null,
  createdAt: '2026-05-12T03:00:00.000Z',
};

export const createWebhookSubscription = defineRoute(Schemas.CreateSubscriptionResponse)({
  name: 'CreateWebhookSubscription',
  method: 'POST',
  path: SUBSCRIPTIONS,
  auth: 'account',
  body: z.object({
    url: Field.text.meta({ format: 'uri', maxLength: 2048, description: 'Where to deliver: an HTTPS URL on a public host, at most 2048 characters' }),
    currencies: Field.codes.optional().meta({ description: 'The currency codes to deliver (codes of /symbols); left out: every currency' }),
    description: Field.text.optional().meta({ description: 'A note of your own, shown when listing' }),
  }),
  document: graphql(`
    mutation CreateWebhookSubscription($input: CreateWebhookSubscriptionInput!) {
      createWebhookSubscription(input: $input) {
        signingSecret
        subscription {
          id
          url
          currencies
          description
        }
      }
    }
  `),
  variables: ({ body }) => ({ input: body }),
  respond: ({ createWebhookSubscription: created }) => ({
    body: {
      success: true,
      signingSecret: created.signingSecret,
      warning: 'Store this signing secret now: it is not shown again. Use it to verify the X-ExchangeRates-Signature of each delivery.',
      subscription: created.subscription,
    },
  }),
  doc: {
    summary: 'Subscribe an HTTPS URL to new publications',
    description:
      'Professional, Business and Enterprise plans (3, 10 and 50 subscriptions). The signing secret is in this response only. Deliveries and their signature: see Webhooks above.',
    errors: ['webhooks_not_available', 'subscription_limit_reached'],
    example: {
      request: SUBSCRIPTIONS,
      body: { url: 'https://hooks.example.com/rates', currencies: ['USD', 'EUR'], description: 'treasury' },
      response: {
        success: true,
        signingSecret: 'whsec_Qz__81N2PAQ6CuXVwx4IXXK___ZbgmWehApKSuDLa4Q',
        warning: 'Store this signing secret now: it is not shown again. Use it to verify the X-ExchangeRates-Signature of each delivery.',
        subscription: { id: EXAMPLE_ID, url: 'https://hooks.example.com/rates', currencies: ['USD', 'EUR'], description: 'treasury' },
      },
      varies: ['signingSecret', 'subscription.id'],
    },
  },
  cacheControl: 'no-store',
});

export const webhookSubscriptions = defineRoute(Schemas.SubscriptionListResponse)({
  name: 'WebhookSubscriptions',
  method: 'GET',
  path: SUBSCRIPTIONS,
  auth: 'account',
  document: graphql(`query WebhookSubscriptions {
    webhookSubscriptions { subscriptions { ${SUBSCRIPTION_FIELDS} } limit }
  }`),
  variables: () => ({}),
  respond: ({ webhookSubscriptions: list }) => ({
    body: { success: true, subscriptions: list.subscriptions, limit: list.limit },
  }),
  doc: {
    summary: "The account's webhook subscriptions",
    errors: [],
    example: {
      request: SUBSCRIPTIONS,
      response: { success: true, subscriptions: [EXAMPLE_SUBSCRIPTION], limit: 10 },
      varies: ['subscriptions.0.id', 'subscriptions.0.createdAt'],
    },
  },
  cacheControl: 'no-store',
});

export const deleteWebhookSubscription = defineRoute(Schemas.DeleteSubscriptionResponse)({
  name: 'DeleteWebhookSubscription',
  method: 'DELETE',
  path: `${SUBSCRIPTIONS}/:id`,
  auth: 'account',
  params: SUBSCRIPTION_ID,
  document: graphql('mutation DeleteWebhookSubscription($id: Text!) { deleteWebhookSubscription(id: $id) }'),
  variables: ({ params }) => ({ id: params.id }),
  respond: ({ deleteWebhookSubscription: id }) => ({
    body: { success: true, message: `Webhook subscription ${id} deleted; its pending deliveries are cancelled` },
  }),
  doc: {
    summary: 'Delete a subscription and cancel its pending deliveries',
    errors: ['not_found'],
    example: {
      request: `${SUBSCRIPTIONS}/${EXAMPLE_ID}`,
      response: { success: true, message: `Webhook subscription ${EXAMPLE_ID} deleted; its pending deliveries are cancelled` },
    },
  },
  cacheControl: 'no-store',
});

export const updateWebhookSubscription = defineRoute(Schemas.UpdateSubscriptionResponse)({
  name: 'UpdateWebhookSubscription',
  method: 'PATCH',
  path: `${SUBSCRIPTIONS}/:id`,
  auth: 'account',
  params: SUBSCRIPTION_ID,
  body: z.object({
    isActive: Field.boolean.meta({ description: '`true` delivers again (and starts counting failures from 0); `false` pauses the subscription' }),
  }),
  document: graphql(`mutation UpdateWebhookSubscription($id: Text!, $isActive: Boolean!) {
    setWebhookSubscriptionActive(id: $id, isActive: $isActive) { ${SUBSCRIPTION_FIELDS} }
  }`),
  variables: ({ params, body }) => ({ id: params.id, isActive: body.isActive }),
  respond: ({ setWebhookSubscriptionActive: subscription }) => ({ body: { success: true, subscription } }),
  doc: {
    summary: 'Re-activate (or pause) a subscription',
    description: '`{"isActive": true}` re-activates a subscription switched off after 10 failed deliveries in a row and resets its failure count.',
    errors: ['not_found', 'webhooks_not_available'],
    example: {
      request: `${SUBSCRIPTIONS}/${EXAMPLE_ID}`,
      body: { isActive: true },
      response: { success: true, subscription: EXAMPLE_SUBSCRIPTION },
      varies: ['subscription.createdAt'],
    },
  },
  cacheControl: 'no-store',
});

export const testWebhookSubscription = defineRoute(Schemas.TestDeliveryResponse)({
  name: 'TestWebhookSubscription',
  method: 'POST',
  path: `${SUBSCRIPTIONS}/:id/test`,
  auth: 'account',
  params: SUBSCRIPTION_ID,
  document: graphql(`
    mutation TestWebhookSubscription($id: Text!) {
      testWebhookSubscription(id: $id) {
        delivered
        responseStatus
        message
      }
    }
  `),
  variables: ({ params }) => ({ id: params.id }),
  respond: ({ testWebhookSubscription: test }) => ({
    body: { success: test.delivered, responseStatus: test.responseStatus, message: test.message },
  }),
  doc: {
    summary: 'Send one signed rates.test delivery now',
    description: 'The delivery carries the newest rates, with the event `rates.test`; the answer says what the receiver answered.',
    errors: ['not_found', 'webhooks_not_available'],
    example: {
      request: `${SUBSCRIPTIONS}/${EXAMPLE_ID}/test`,
      response: { success: true, responseStatus: 200, message: 'Test delivery 0b6f2c1e-4d8a-4f3b-9c7e-2a5d8e1f6b90 acknowledged with 200' },
      // what the receiver answers, and the delivery's own id
      varies: ['success', 'responseStatus', 'message'],
    },
  },
  cacheControl: 'no-store',
});

export const webhookDeliveries = defineRoute(Schemas.DeliveryListResponse)({
  name: 'WebhookDeliveries',
  method: 'GET',
  path: `${SUBSCRIPTIONS}/:id/deliveries`,
  auth: 'account',
  query: z.object({ cursor: Param.cursor.optional() }),
  params: SUBSCRIPTION_ID,
  document: graphql(`
    query WebhookDeliveries($id: Text!, $cursor: Text) {
      webhookDeliveries(id: $id, cursor: $cursor) {
        deliveries { ${DELIVERY_FIELDS} }
        nextCursor
      }
    }
  `),
  variables: ({ params, query }) => ({ id: params.id, cursor: query.cursor ?? null }),
  respond: ({ webhookDeliveries: page }) => ({ body: { success: true, deliveries: page.deliveries.map(loggedDelivery), nextCursor: page.nextCursor } }),
  doc: {
    summary: "A subscription's deliveries of the last 30 days",
    description:
      'Newest first, 50 a page, test deliveries included (`event` tells them apart), each with its attempts oldest first. Pass `nextCursor` as `cursor` for the next page.',
    errors: ['not_found'],
    example: {
      request: `${SUBSCRIPTIONS}/${EXAMPLE_ID}/deliveries`,
      response: {
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
      replayedBy: 'test/webhooks/delivery-log.test.ts',
    },
  },
  cacheControl: 'no-store',
});

export const redeliverWebhookDelivery = defineRoute(Schemas.RedeliverResponse)({
  name: 'RedeliverWebhookDelivery',
  method: 'POST',
  path: `${SUBSCRIPTIONS}/:id/deliveries/:deliveryId/redeliver`,
  auth: 'account',
  params: z.object({ id: Param.id, deliveryId: Param.deliveryId }),
  document: graphql(`
    mutation RedeliverWebhookDelivery($id: Text!, $deliveryId: Text!) {
      redeliverWebhookDelivery(id: $id, deliveryId: $deliveryId) { ${DELIVERY_FIELDS} }
    }
  `),
  variables: ({ params }) => ({ id: params.id, deliveryId: params.deliveryId }),
  respond: ({ redeliverWebhookDelivery: { id, state, attempts } }) => ({
    body: { success: state === 'delivered', delivery: { id, state, attempts } },
  }),
  doc: {
    summary: 'Send a delivery once more now',
    description:
      'One new attempt of a delivery of the last 30 days, with the same body and delivery id, signed with the current secret, on an active or a paused subscription (which it does not reactivate). Answers once the attempt is made.',
    errors: ['not_found', 'webhooks_not_available'],
    example: {
      request: `${SUBSCRIPTIONS}/${EXAMPLE_ID}/deliveries/3b241101-e2bb-4255-8caf-4136c566a962/redeliver`,
      response: {
        success: true,
        delivery: {
          id: '3b241101-e2bb-4255-8caf-4136c566a962',
          state: 'delivered',
          attempts: [
            { at: '2023-01-04T06:00:02.000Z', status: 503, error: 'HTTP 503', durationMs: 84 },
            { at: '2023-01-04T09:12:40.000Z', status: 200, error: null, durationMs: 58 },
          ],
        },
      },
      replayedBy: 'test/webhooks/delivery-log.test.ts',
    },
  },
  cacheControl: 'no-store',
});
