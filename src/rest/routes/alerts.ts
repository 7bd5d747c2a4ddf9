// Rate alerts (docs/api.md §4.3), authorised as the webhook subscriptions are.
import { z } from 'zod';
import { graphql } from '../../graphql.js';
import { RawJson } from '../../json.js';
import { Field } from '../body.js';
import * as Schemas from '../openapi/schemas.js';
import { Param } from '../params.js';
import { defineRoute } from '../route.js';
import { EXAMPLE_ID } from './webhook-subscriptions.js';

const ALERTS = '/api/alerts';
const ALERT_FIELDS = 'id currency condition value channels description isActive lastTriggeredAt triggerCount createdAt';
const ALERT_PARAMS = z.object({ id: Param.alertId });
const EXAMPLE_ALERT_ID = '9c4e1b7a2d3f4e5a8b6c0d1e2f3a4b5c';
const EXAMPLE_ALERT = {
  id: EXAMPLE_ALERT_ID,
  currency: 'USD',
  condition: 'above',
  value: 0.69,
  channels: ['email', 'webhook'],
  description: 'invoice USD when the dollar is strong',
  isActive: true,
  lastTriggeredAt: null,
  triggerCount: 0,
  createdAt: '2026-05-12T03:00:00.000Z',
};
/** An alert as the API writes it: its value an exact JSON number. */
const alertJson = <Alert extends { value: string }>(alert: Alert) => ({ ...alert, value: new RawJson<number>(alert.value) });

export const createAlert = defineRoute(Schemas.AlertResponse)({
  name: 'CreateAlert',
  method: 'POST',
  path: ALERTS,
  auth: 'account',
  body: z.object({
    currency: Field.text.meta({ description: 'The code to watch: one of the 20 codes of /symbols but AUD' }),
    condition: Field.text.meta({
      enum: ['above', 'below', 'change_pct'],
      description: 'When it fires: `above` or `below` a rate level, or `change_pct`, a move of a percentage in a day',
    }),
    value: Field.decimal.meta({
      description:
        'A positive decimal of at most 6 places, below 1000000000: the rate level (A$1 = value units) for above and below, a percentage for change_pct',
    }),
    channels: Field.strings.meta({ description: 'How it is sent: `email`, `webhook` or both (`webhook` needs the Professional plan or above)' }),
    description: Field.text.optional().meta({ description: 'A note of your own, at most 200 characters, shown when listing' }),
  }),
  document: graphql(`
    mutation CreateAlert($input: CreateAlertInput!) {
      createAlert(input: $input) { ${ALERT_FIELDS} }
    }
  `),
  variables: ({ body }) => ({ input: body }),
  respond: ({ createAlert: alert }) => ({ body: { success: true, alert: alertJson(alert) } }),
  doc: {
    summary: 'Create a rate alert',
    description:
      "Checked at every publication: `above` fires when the new rate is at or above `value` and the previous rate day's was below it, `below` the mirror, `change_pct` when the day's move is at least `value` per cent either way. At most once per rate day. Starter (3 alerts, e-mail only), Professional (20), Business (100) and Enterprise (500).",
    errors: ['alerts_not_available', 'alert_limit_reached', 'webhooks_not_available'],
    example: {
      request: ALERTS,
      body: { currency: 'USD', condition: 'above', value: 0.69, channels: ['email', 'webhook'], description: 'invoice USD when the dollar is strong' },
      response: { success: true, alert: EXAMPLE_ALERT },
      varies: ['alert.id', 'alert.createdAt'],
    },
  },
  cacheControl: 'no-store',
});

export const alerts = defineRoute(Schemas.AlertListResponse)({
  name: 'Alerts',
  method: 'GET',
  path: ALERTS,
  auth: 'account',
  document: graphql(`query Alerts {
    alerts { alerts { ${ALERT_FIELDS} } limit }
  }`),
  variables: () => ({}),
  respond: ({ alerts: list }) => ({ body: { success: true, alerts: list.alerts.map(alertJson), limit: list.limit } }),
  doc: {
    summary: "The account's rate alerts",
    errors: [],
    example: {
      request: ALERTS,
      response: { success: true, alerts: [EXAMPLE_ALERT], limit: 100 },
      varies: ['alerts.0.id', 'alerts.0.createdAt'],
    },
  },
  cacheControl: 'no-store',
});

export const updateAlert = defineRoute(Schemas.AlertResponse)({
  name: 'UpdateAlert',
  method: 'PATCH',
  path: `${ALERTS}/:id`,
  auth: 'account',
  params: ALERT_PARAMS,
  body: z.object({ isActive: Field.boolean.meta({ description: '`false` pauses the alert; `true` resumes it' }) }),
  document: graphql(`mutation UpdateAlert($id: Text!, $isActive: Boolean!) {
    setAlertActive(id: $id, isActive: $isActive) { ${ALERT_FIELDS} }
  }`),
  variables: ({ params, body }) => ({ id: params.id, isActive: body.isActive }),
  respond: ({ setAlertActive: alert }) => ({ body: { success: true, alert: alertJson(alert) } }),
  doc: {
    summary: 'Pause or resume an alert',
    errors: ['not_found', 'alerts_not_available'],
    example: {
      request: `${ALERTS}/${EXAMPLE_ALERT_ID}`,
      body: { isActive: false },
      response: { success: true, alert: { ...EXAMPLE_ALERT, isActive: false } },
      varies: ['alert.createdAt'],
    },
  },
  cacheControl: 'no-store',
});

export const deleteAlert = defineRoute(Schemas.DeleteAlertResponse)({
  name: 'DeleteAlert',
  method: 'DELETE',
  path: `${ALERTS}/:id`,
  auth: 'account',
  params: ALERT_PARAMS,
  document: graphql('mutation DeleteAlert($id: Text!) { deleteAlert(id: $id) }'),
  variables: ({ params }) => ({ id: params.id }),
  respond: ({ deleteAlert: id }) => ({ body: { success: true, message: `Rate alert ${id} deleted` } }),
  doc: {
    summary: 'Delete an alert and its firings',
    errors: ['not_found'],
    example: { request: `${ALERTS}/${EXAMPLE_ALERT_ID}`, response: { success: true, message: `Rate alert ${EXAMPLE_ALERT_ID} deleted` } },
  },
  cacheControl: 'no-store',
});

export const testAlert = defineRoute(Schemas.TestAlertResponse)({
  name: 'TestAlert',
  method: 'POST',
  path: `${ALERTS}/:id/test`,
  auth: 'account',
  params: ALERT_PARAMS,
  document: graphql(`
    mutation TestAlert($id: Text!) {
      testAlert(id: $id) {
        email {
          to
          sent
          message
        }
        webhooks {
          subscriptionId
          url
          delivered
          responseStatus
          message
        }
      }
    }
  `),
  variables: ({ params }) => ({ id: params.id }),
  respond: ({ testAlert: test }) => ({
    body: { success: (test.email?.sent ?? true) && test.webhooks.every((w) => w.delivered), email: test.email, webhooks: test.webhooks },
  }),
  doc: {
    summary: 'Send a sample of an alert on each of its channels now',
    description:
      "From the newest two rate days of its currency, whatever its condition: an e-mail to the account's address (with the `email` channel) and a signed delivery with the event `rates.test` and the `rates.alert` body to each active subscription covering the currency (with the `webhook` channel). A test never counts as a firing.",
    errors: ['not_found', 'alerts_not_available'],
    example: {
      request: `${ALERTS}/${EXAMPLE_ALERT_ID}/test`,
      response: {
        success: true,
        email: { to: 'treasury@example.com', sent: true, message: 'Test e-mail sent to treasury@example.com' },
        webhooks: [
          {
            subscriptionId: EXAMPLE_ID,
            url: 'https://hooks.example.com/rates',
            delivered: true,
            responseStatus: 200,
            message: 'Test delivery 0b6f2c1e-4d8a-4f3b-9c7e-2a5d8e1f6b90 acknowledged with 200',
          },
        ],
      },
      replayedBy: 'test/alerts/publication.test.ts',
    },
  },
  cacheControl: 'no-store',
});
