// D22, D23 (docs/decisions.md): a rate answer served while the data is stale carries X-Data-Stale
// and X-RBA-Source-Date, from the rate history the request read.
import { expect, it } from 'vitest';
import { RateHistory } from '../../../src/domain/rate-history.js';
import type { Context } from '../../../src/schema/context.js';
import { freshness } from '../../../src/rest/steps/freshness.js';
import { answering, routedExchange } from './support.js';

// Monday 11 May 2026 is stored: Tuesday's rates are due at 16:00 Sydney (06:00Z), stale from 08:00Z.
const history = RateHistory.of([{ date: '2026-05-11', rates: { USD: '0.65' } }], new Date('2026-05-11T06:05:00Z'));

async function served(name: string, target: string, now: string, rates: RateHistory = history) {
  const exchange = routedExchange(name, target);
  exchange.context = { rates: { history: async () => rates } } as Pick<Context, 'rates'> as Context;
  await freshness(() => new Date(now))(exchange, answering());
  return exchange.answer!.headers;
}

it('says nothing while the data is fresh', async () => {
  expect(await served('Latest', '/latest', '2026-05-12T07:59:59Z')).toEqual({ 'Cache-Control': 'no-store' });
});

it.each([
  ['Latest', '/latest'],
  ['LatestCurrency', '/latest/USD'],
  ['RateDay', '/2026-05-11'],
  ['RateDayCurrency', '/2026-05-11/USD'],
  ['TimeSeries', '/timeseries'],
  ['Convert', '/convert'],
])('marks a stale %s answer', async (name, target) => {
  expect(await served(name, target, '2026-05-12T08:00:01Z')).toEqual({
    'Cache-Control': 'no-store',
    'X-Data-Stale': 'true',
    'X-RBA-Source-Date': '2026-05-11',
  });
});

it.each([
  ['Root', '/'],
  ['Symbols', '/symbols'],
  ['WebhookSubscriptions', '/api/webhook-subscriptions'],
])('leaves %s alone: it serves no rates', async (name, target) => {
  expect(await served(name, target, '2026-06-30T00:00:00Z')).toEqual({ 'Cache-Control': 'no-store' });
});

it('says nothing when no rate is stored (no date to name)', async () => {
  expect(await served('Latest', '/latest', '2026-06-30T00:00:00Z', RateHistory.of([], null))).toEqual({ 'Cache-Control': 'no-store' });
});
