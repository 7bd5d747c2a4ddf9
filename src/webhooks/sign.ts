// The request of a delivery (D27 in docs/decisions.md), signed so that a receiver can check it with
// `crypto.createHmac('sha256', secret).update(rawBody).digest('hex')`.
import { createHmac } from 'node:crypto';
import type { WebhookEvent } from '../db/database.js';
import { VERSION } from '../version.js';
import type { WebhookRequest } from './send.js';

const USER_AGENT = `aud-rates-webhooks/${VERSION}`;

export function signedDelivery(url: string, event: WebhookEvent, deliveryId: string, payload: string, secret: string): WebhookRequest {
  return {
    url,
    body: payload,
    headers: {
      'Content-Type': 'application/json',
      'User-Agent': USER_AGENT,
      'X-ExchangeRates-Event': event,
      'X-ExchangeRates-Delivery': deliveryId,
      'X-ExchangeRates-Signature': `sha256=${createHmac('sha256', secret).update(payload).digest('hex')}`,
    },
  };
}
