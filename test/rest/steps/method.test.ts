// docs/api.md §4, D25 (docs/decisions.md): HEAD is GET; other methods a path does not answer are 405 with Allow.
import { expect, it } from 'vitest';
import { MethodNotAllowedError } from '../../../src/rest/http-errors.js';
import { checkMethod } from '../../../src/rest/steps/method.js';
import { exchangeOf, recordingNext, routeNamed } from './support.js';

const at = (name: string, method: string) => {
  const exchange = exchangeOf('/', { method });
  exchange.path = routeNamed(name).path;
  return exchange;
};

it.each([
  ['GET', 'Latest', 'Latest'],
  ['HEAD', 'Latest', 'Latest'],
  ['POST', 'WebhookSubscriptions', 'CreateWebhookSubscription'],
  ['GET', 'WebhookSubscriptions', 'WebhookSubscriptions'],
  ['PATCH', 'DeleteWebhookSubscription', 'UpdateWebhookSubscription'],
])('%s on the path of %s picks %s', async (method, pathOf, picked) => {
  const exchange = at(pathOf, method);
  const next = recordingNext();
  await checkMethod(exchange, next);
  expect(exchange.route!.name).toBe(picked);
  expect(next.calls).toBe(1);
});

it.each([
  ['POST', 'Latest', 'GET, HEAD, OPTIONS'],
  ['PUT', 'WebhookSubscriptions', 'POST, GET, HEAD, OPTIONS'],
  ['GET', 'TestWebhookSubscription', 'POST, OPTIONS'],
  ['get', 'Latest', 'GET, HEAD, OPTIONS'],
])('%s on the path of %s is 405 with Allow: %s', async (method, pathOf, allow) => {
  const next = recordingNext();
  const refused = (async () => checkMethod(at(pathOf, method), next))();
  await expect(refused).rejects.toBeInstanceOf(MethodNotAllowedError);
  await expect(refused).rejects.toMatchObject({ code: 'method_not_allowed', headers: { Allow: allow } });
  expect(next.calls).toBe(0);
});
