// Routing (the edge's router, src/edge.ts, over the REST table): by method and path, literal segments
// winning over parameters, D14's date pattern, empty segments ignored; and what the edge answers
// itself for every surface: an unknown path 404, a method the path does not answer 405 with its
// Allow, OPTIONS 204 (with the preflight's headers where CORS applies), HEAD as GET, a segment that
// is not text 400.
import { describe, expect, it } from 'vitest';
import { answerMethods, createRouter, locate } from '../../../src/edge.js';
import { BadRequestError, NotFoundError } from '../../../src/errors.js';
import { MethodNotAllowedError } from '../../../src/http/http-errors.js';
import { compose } from '../../../src/rest/compose.js';
import { routeEndpoint } from '../../../src/rest/pipeline.js';
import { routes } from '../../../src/rest/routes.js';
import { envelopeOf } from '../../../src/rest/steps/errors.js';
import { exchangeOf, recordingNext } from './support.js';

const router = createRouter(
  routes.map((route) => routeEndpoint(route, () => Promise.resolve())),
  [{ prefix: '/dashboard/', render: envelopeOf, notFound: 'No page here' }],
);

async function run(target: string, method = 'GET') {
  const exchange = exchangeOf(target, { method });
  const next = recordingNext();
  await compose([locate(router), answerMethods(() => 'Unknown endpoint'), (ex, done) => next(ex).then(() => done(ex))])(exchange);
  return { exchange, reached: next.calls === 1 };
}

describe('by method and path', () => {
  it.each([
    ['/latest', 'GET', 'Latest', {}],
    ['//latest/', 'GET', 'Latest', {}],
    ['/latest', 'HEAD', 'Latest', {}],
    ['/latest/USD', 'GET', 'LatestCurrency', { currency: 'USD' }],
    ['/latest/%55SD', 'GET', 'LatestCurrency', { currency: 'USD' }],
    ['/2024-01-05', 'GET', 'RateDay', { date: '2024-01-05' }],
    ['/2024-13-99/EUR', 'GET', 'RateDayCurrency', { date: '2024-13-99', currency: 'EUR' }],
    ['/', 'GET', 'Root', {}],
    ['/api/webhook-subscriptions', 'POST', 'CreateWebhookSubscription', {}],
    ['/api/webhook-subscriptions', 'GET', 'WebhookSubscriptions', {}],
    ['/api/webhook-subscriptions/abc', 'PATCH', 'UpdateWebhookSubscription', { id: 'abc' }],
    ['/api/webhook-subscriptions/abc/test', 'POST', 'TestWebhookSubscription', { id: 'abc' }],
  ])('%s %s is %s', async (target, method, name, params) => {
    const { exchange, reached } = await run(target, method);
    expect(reached).toBe(true);
    expect(exchange.route!.name).toBe(name);
    expect(exchange.params).toEqual(params);
  });

  it('names a path for metrics by its template', async () => {
    expect((await run('/2024-01-05/USD')).exchange.endpoint!.template).toBe('/{date}/{currency}');
  });
});

describe('answered by the edge', () => {
  it.each(['/nope', '/latest/USD/extra', '/2024-01-05x', '/status/1'])('%s is 404', async (target) => {
    await expect(run(target)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("a path under a surface's prefix is refused by that surface", async () => {
    await expect(run('/dashboard/nope')).rejects.toThrow('No page here');
    expect(router('GET', '/dashboard/nope').cors).toBe(false);
  });

  it.each(['/latest/%FF', '/%00', '/nope/%ED%A0%80', '/2024-01-05/%C3'])('%s is 400 whatever the path', async (target) => {
    await expect(run(target)).rejects.toBeInstanceOf(BadRequestError);
  });

  it.each([
    ['/latest', 'POST', 'GET, HEAD, OPTIONS'],
    ['/api/webhook-subscriptions', 'PUT', 'POST, GET, HEAD, OPTIONS'],
    ['/api/webhook-subscriptions/abc/test', 'GET', 'POST, OPTIONS'],
    ['/api/webhook-subscriptions/abc', 'GET', 'DELETE, PATCH, OPTIONS'],
    ['/2024-01-05', 'DELETE', 'GET, HEAD, OPTIONS'],
    ['/latest', 'get', 'GET, HEAD, OPTIONS'],
    ['/latest', 'BREW', 'GET, HEAD, OPTIONS'],
  ])('%s %s is 405 with Allow: %s', async (target, method, allow) => {
    const refused = run(target, method);
    await expect(refused).rejects.toBeInstanceOf(MethodNotAllowedError);
    await expect(refused).rejects.toMatchObject({ code: 'method_not_allowed', headers: { Allow: allow } });
  });

  it('answers a preflight on a data endpoint with 204, its methods and the preflight headers, without going further', async () => {
    const { exchange, reached } = await run('/latest', 'OPTIONS');
    expect(reached).toBe(false);
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
    const { exchange } = await run('/api/webhook-subscriptions', 'OPTIONS');
    expect(exchange.answer).toEqual({ status: 204, body: null, headers: { Allow: 'POST, GET, HEAD, OPTIONS' } });
  });

  it('refuses two endpoints for one method and path at start-up', () => {
    const latest = routeEndpoint(
      routes.find((r) => r.name === 'Latest')!,
      () => Promise.resolve(),
    );
    expect(() => createRouter([latest, latest])).toThrow(/Two endpoints for GET \/latest/);
  });
});
