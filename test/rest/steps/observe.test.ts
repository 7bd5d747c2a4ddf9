// Every answered request is counted: per key for usage, and in the metrics.
import { expect, it } from 'vitest';
import type { AnsweredRequest } from '../../../src/metrics.js';
import type { ApiKeyViewer } from '../../../src/schema/context.js';
import { observe } from '../../../src/rest/steps/observe.js';
import { answering, exchangeOf, routedExchange } from './support.js';

function setUp() {
  const used: [ApiKeyViewer, string, number][] = [];
  const answered: AnsweredRequest[] = [];
  const step = observe({ record: (viewer, endpoint, status) => void used.push([viewer, endpoint, status]) }, { request: (a) => void answered.push(a) });
  return { step, used, answered };
}

const viewer: ApiKeyViewer = { kind: 'apiKey', accountId: 'a', keyId: 'k', plan: 'professional', billingDay: 1 };

it('records a keyed request for usage and metrics', async () => {
  const { step, used, answered } = setUp();
  const exchange = routedExchange('RateDayCurrency', '/2024-01-05/USD');
  exchange.viewer = viewer;
  await step(exchange, answering());
  expect(used).toEqual([[viewer, 'RateDayCurrency', 200]]);
  expect(answered).toEqual([{ route: '/{date}/{currency}', method: 'GET', status: 200, seconds: expect.any(Number), cached: false, refusal: null }]);
});

it('counts no usage without a key, and names an unmatched path and a 429', async () => {
  const { step, used, answered } = setUp();
  await step(exchangeOf('/nope'), answering('{}', 404));
  const limited = routedExchange('Convert', '/convert');
  await step(limited, answering('{}', 429));
  expect(used).toEqual([]);
  expect(answered.map((a) => [a.route, a.status, a.refusal])).toEqual([
    ['unmatched', 404, null],
    ['/convert', 429, 'keyless'],
  ]);
});
