// Routing (src/rest/router.ts): literal segments win over parameters, D14's date pattern, empty
// segments ignored, an unknown path 404 and a segment that is not text 400.
import { expect, it } from 'vitest';
import { BadRequestError, NotFoundError } from '../../../src/errors.js';
import { routes } from '../../../src/rest/routes.js';
import { findRoute } from '../../../src/rest/steps/route.js';
import { exchangeOf, recordingNext } from './support.js';

const step = findRoute(routes);

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
