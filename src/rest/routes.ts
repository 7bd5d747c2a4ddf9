// The public REST contract: every endpoint, one file per resource (src/rest/routes/), in the order
// the OpenAPI document lists them. What a route is: src/rest/route.ts.
import { TOOLS } from '../mcp/tools.js';
import { countedEndpoints, type CountedEndpoints } from './counted-endpoints.js';
import type { Route } from './route.js';
import { alerts, createAlert, deleteAlert, testAlert, updateAlert } from './routes/alerts.js';
import { averages } from './routes/averages.js';
import { calendar } from './routes/calendar.js';
import { convert } from './routes/convert.js';
import { rateExport } from './routes/export.js';
import { fluctuation } from './routes/fluctuation.js';
import { latest, latestCurrency } from './routes/latest.js';
import { rateDay, rateDayCurrency } from './routes/rate-day.js';
import { root, status, symbols } from './routes/service.js';
import { timeSeries } from './routes/timeseries.js';
import { usage } from './routes/usage.js';
import {
  createWebhookSubscription,
  deleteWebhookSubscription,
  redeliverWebhookDelivery,
  testWebhookSubscription,
  updateWebhookSubscription,
  webhookDeliveries,
  webhookSubscriptions,
} from './routes/webhook-subscriptions.js';

let counted: CountedEndpoints | undefined;

export const routes: readonly Route[] = [
  root,
  status,
  symbols,
  calendar,
  convert,
  latest,
  latestCurrency,
  timeSeries,
  rateExport,
  fluctuation,
  rateDay,
  rateDayCurrency,
  createWebhookSubscription,
  webhookSubscriptions,
  deleteWebhookSubscription,
  updateWebhookSubscription,
  testWebhookSubscription,
  webhookDeliveries,
  redeliverWebhookDelivery,
  createAlert,
  alerts,
  updateAlert,
  deleteAlert,
  testAlert,
  averages,
  usage(() => (counted ??= countedEndpoints(routes, TOOLS))),
];
