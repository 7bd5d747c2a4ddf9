// Rate alerts as a customer makes them (through /api/alerts with a key), and what the tests read of
// their firings.
import { expect } from 'vitest';
import type { TestApp } from './app.js';

export const JSON_HEADERS = { 'Content-Type': 'application/json' };

export interface AlertSpec {
  currency: string;
  condition: 'above' | 'below' | 'change_pct';
  value: string | number;
  channels: ('email' | 'webhook')[];
  description?: string;
}

/** Creates an alert with `key`; its id. */
export async function createAlert(app: TestApp, key: string, spec: AlertSpec): Promise<string> {
  const res = await app.json('/api/alerts', { key, method: 'POST', headers: JSON_HEADERS, body: spec });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.alert.id as string;
}

/** Every firing stored, as (alert, rate date, value, previous value) rows, in alert order. */
export async function firings(app: TestApp) {
  const rows = await app.db
    .selectFrom('alert_firings')
    .select([
      'alert_id',
      'rate_date',
      (eb) => eb.cast<string>('value', 'text').as('value'),
      (eb) => eb.cast<string>('previous_value', 'text').as('previous_value'),
      'previous_date',
    ])
    .orderBy('alert_id')
    .orderBy('rate_date')
    .execute();
  return rows;
}

/** The alert deliveries recorded, as (alert, subscription) pairs. */
export async function alertDeliveries(app: TestApp) {
  return app.db
    .selectFrom('webhook_deliveries')
    .select(['alert_id', 'subscription_id', 'rate_date', 'payload', 'id'])
    .where('event', '=', 'rates.alert')
    .orderBy('alert_id')
    .orderBy('subscription_id')
    .execute();
}
