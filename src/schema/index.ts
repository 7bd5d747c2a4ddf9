// The whole GraphQL schema: one file per type, each adding its queries and mutations to the builder.
import { builder } from './builder.js';
import './scalars.js';
import './currency.js';
import './rate-day.js';
import './conversion.js';
import './fluctuation.js';
import './period-averages.js';
import './service-status.js';
import './account.js';
import './api-key.js';
import './rate-import.js';
import './rate-sync.js';
import './webhook-subscription.js';
import './webhook-delivery.js';
import './alert.js';
import './usage-analytics.js';
import './conversion-analytics.js';
import './data-analytics.js';
import './poll-analytics.js';
import './webhook-analytics.js';
import './alert-analytics.js';
import './account-analytics.js';
import './session.js';
import './account-quota.js';
import './session-keys.js';
import './account-usage.js';

export const schema = builder.toSchema({ sortSchema: true });
