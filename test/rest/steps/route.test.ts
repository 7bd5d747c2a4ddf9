// Routing (the edge's router, src/edge.ts, over the REST table): literal segments win over
// parameters, D14's date pattern, empty segments ignored, an unknown path 404 and a segment that is
// not text 400.
import { expect, it } from 'vitest';
import { createRouter, locate } from '../../../src/edge.js';
import { BadRequestError, NotFoundError } from '../../../src/errors.js';
import type { Step } from '../../../src/rest/exchange.js';
import { restPlaces } from '../../../src/rest/pipeline.js';
import { routes } from '../../../src/rest/routes.js';
import { exchangeOf, recordingNext } from './support.js';

// The edge locates a request; a path the API serves goes on to its steps (here `next`), any other
// is refused by its place.
const located = locate(createRouter(restPlaces(routes, () => Promise.resolve())));
const step: Step = (exchange, next) => located(exchange, (ex) => (ex.path ? next(ex) : ex.place!.serve(ex)));

async function routed(target: string) {
  const exchange = exchangeOf(target);
  const next = recordingNext();
  await step(exchange, next);
  expect(next.calls).toBe(1);
  return { names: exchange.path!.routes.map((r) => r.name), params: exchange.params, template: exchange.path!.template };
}

it.each([
  ['/latest', ['Latest'], {}],
  ['//latest/', ['Latest'], {}],
  ['/latest/USD', ['LatestCurrency'], { currency: 'USD' }],
  ['/latest/%55SD', ['LatestCurrency'], { currency: 'USD' }],
  ['/2024-01-05', ['RateDay'], { date: '2024-01-05' }],
  ['/2024-13-99/EUR', ['RateDayCurrency'], { date: '2024-13-99', currency: 'EUR' }],
  ['/', ['Root'], {}],
  ['/api/webhook-subscriptions/abc/test', ['TestWebhookSubscription'], { id: 'abc' }],
])('%s is %j', async (target, names, params) => {
  const found = await routed(target);
  expect(found.names).toEqual(names);
  expect(found.params).toEqual(params);
});

it('names a path for metrics by its template', async () => {
  expect((await routed('/2024-01-05/USD')).template).toBe('/{date}/{currency}');
});

it.each(['/nope', '/latest/USD/extra', '/2024-01-05x', '/status/1'])('%s is 404', async (target) => {
  await expect((async () => step(exchangeOf(target), recordingNext()))()).rejects.toBeInstanceOf(NotFoundError);
});

it.each(['/latest/%FF', '/%00', '/nope/%ED%A0%80', '/2024-01-05/%C3'])('%s is 400 whatever the path', async (target) => {
  await expect((async () => step(exchangeOf(target), recordingNext()))()).rejects.toBeInstanceOf(BadRequestError);
});
