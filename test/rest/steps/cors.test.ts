// D25 (docs/decisions.md): CORS on the data endpoints and unknown paths, none on the account's own.
// (A preflight is the edge's: test/rest/steps/route.test.ts.)
import { expect, it } from 'vitest';
import { corsHeaders } from '../../../src/rest/steps/cors.js';
import { answering, exchangeOf, routedExchange } from './support.js';

it('adds the CORS headers on the way out of a data endpoint', async () => {
  const exchange = routedExchange('Latest', '/latest');
  await corsHeaders(exchange, answering());
  expect(exchange.headers['Access-Control-Allow-Origin']).toBe('*');
  expect(exchange.headers['Access-Control-Expose-Headers']).toContain('X-Data-Stale');
});

it('adds them to an answer for a path that matched nothing', async () => {
  const exchange = exchangeOf('/nowhere');
  await corsHeaders(exchange, answering());
  expect(exchange.headers['Access-Control-Allow-Origin']).toBe('*');
});

it('leaves them off the webhook endpoints', async () => {
  const exchange = routedExchange('WebhookSubscriptions', '/api/webhook-subscriptions');
  await corsHeaders(exchange, answering());
  expect(exchange.headers['Access-Control-Allow-Origin']).toBeUndefined();
});
