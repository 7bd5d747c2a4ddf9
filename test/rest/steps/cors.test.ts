// D25 (docs/decisions.md): CORS on the data endpoints and unknown paths, none on the account's own;
// a preflight is 204 with the path's methods.
import { expect, it } from 'vitest';
import { corsHeaders, preflight } from '../../../src/rest/steps/cors.js';
import { answering, exchangeOf, recordingNext, routeNamed } from './support.js';

it('adds the CORS headers on the way out of a data endpoint', async () => {
  const exchange = exchangeOf('/latest');
  exchange.path = routeNamed('Latest').path;
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
  const exchange = exchangeOf('/api/webhook-subscriptions');
  exchange.path = routeNamed('WebhookSubscriptions').path;
  await corsHeaders(exchange, answering());
  expect(exchange.headers['Access-Control-Allow-Origin']).toBeUndefined();
});

it('answers a preflight on a data endpoint with 204, its methods and the preflight headers, without going further', async () => {
  const exchange = exchangeOf('/latest', { method: 'OPTIONS' });
  exchange.path = routeNamed('Latest').path;
  const next = recordingNext();
  await preflight(exchange, next);
  expect(next.calls).toBe(0);
  expect(exchange.answer).toEqual({
    status: 204,
    body: null,
    headers: {
      Allow: 'GET, HEAD, OPTIONS',
      'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
      'Access-Control-Allow-Headers': 'Authorization, Content-Type, If-None-Match',
      'Access-Control-Max-Age': '86400',
    },
  });
});

it('answers OPTIONS on a webhook endpoint with Allow alone', async () => {
  const exchange = exchangeOf('/api/webhook-subscriptions', { method: 'OPTIONS' });
  exchange.path = routeNamed('WebhookSubscriptions').path;
  await preflight(exchange, recordingNext());
  expect(exchange.answer).toEqual({ status: 204, body: null, headers: { Allow: 'POST, GET, HEAD, OPTIONS' } });
});

it('hands any other method on', async () => {
  const exchange = exchangeOf('/latest');
  exchange.path = routeNamed('Latest').path;
  const next = recordingNext();
  await preflight(exchange, next);
  expect(next.calls).toBe(1);
  expect(exchange.answer).toBeNull();
});
