// Every answered request is counted: per key for usage (and, without a key, handed over for the
// recorder's keyless /convert counts), and in the metrics.
import { expect, it } from 'vitest';
import type { AnsweredRequest } from '../../../src/metrics.js';
import type { ApiKeyViewer } from '../../../src/schema/context.js';
import { observe } from '../../../src/rest/steps/observe.js';
import { answering, exchangeOf, routedExchange } from './support.js';

function setUp() {
  const used: [ApiKeyViewer | null, string, number, string][] = [];
  const answered: AnsweredRequest[] = [];
  const step = observe(
    { record: (viewer, endpoint, status, url) => void used.push([viewer, endpoint, status, url.search]) },
    { request: (a) => void answered.push(a) },
  );
  return { step, used, answered };
}

const viewer: ApiKeyViewer = { kind: 'apiKey', accountId: 'a', keyId: 'k', plan: 'professional', billingDay: 1 };

it('records a keyed request for usage and metrics', async () => {
  const { step, used, answered } = setUp();
  const exchange = routedExchange('RateDayCurrency', '/2024-01-05/USD');
  exchange.viewer = viewer;
  exchange.keyHolder = viewer;
  await step(exchange, answering());
  expect(used).toEqual([[viewer, 'RateDayCurrency', 200, '']]);
  expect(answered).toEqual([{ route: '/{date}/{currency}', method: 'GET', status: 200, seconds: expect.any(Number), cached: false, refusal: null }]);
});

it('hands over a routed request that sent no key without a viewer, with its query', async () => {
  const { step, used, answered } = setUp();
  await step(exchangeOf('/nope'), answering('{}', 404));
  await step(routedExchange('Convert', '/convert?from=USD&to=EUR&amount=5'), answering('{}', 429));
  expect(used).toEqual([[null, 'Convert', 429, '?from=USD&to=EUR&amount=5']]);
  expect(answered.map((a) => [a.route, a.status, a.refusal])).toEqual([
    ['unmatched', 404, null],
    ['/convert', 429, 'keyless'],
  ]);
});

it('counts no usage for a request whose key was refused: it has no account, and it was not keyless', async () => {
  const { step, used, answered } = setUp();
  await step(routedExchange('Convert', '/convert?from=USD&to=EUR&amount=5', { headers: { Authorization: 'Bearer nosuchkey' } }), answering('{}', 401));
  expect(used).toEqual([]);
  expect(answered.map((a) => a.status)).toEqual([401]);
});

it("records a request its key may not make under the key's account: a restriction's 403, an expired key's 401", async () => {
  const { step, used } = setUp();
  const restricted = routedExchange('Latest', '/latest', { headers: { Authorization: 'Bearer x' } });
  restricted.keyHolder = viewer;
  await step(restricted, answering('{}', 403));
  const expired = routedExchange('Latest', '/latest', { headers: { Authorization: 'Bearer x' } });
  expired.keyHolder = viewer;
  await step(expired, answering('{}', 401));
  expect(used).toEqual([
    [viewer, 'Latest', 403, ''],
    [viewer, 'Latest', 401, ''],
  ]);
});
