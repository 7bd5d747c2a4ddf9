// The envelope of docs/api.md §7 for whatever a later step throws; a fault is logged and 503.
import { GraphQLError } from 'graphql';
import { pino } from 'pino';
import { expect, it } from 'vitest';
import { BadRequestError, InvalidApiKeyError, PlanRestrictedError } from '../../../src/errors.js';
import { MethodNotAllowedError, RateLimitedError } from '../../../src/http/http-errors.js';
import { renderRefusals } from '../../../src/rest/steps/errors.js';
import { exchangeOf, recordingNext } from './support.js';

function captured() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'error' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { step: renderRefusals(logger), lines };
}

async function answerFor(error: unknown) {
  const { step, lines } = captured();
  const exchange = exchangeOf('/latest');
  exchange.requestId = 'req-1';
  await step(
    exchange,
    recordingNext(() => {
      throw error;
    }),
  );
  const answer = exchange.answer!;
  return { status: answer.status, headers: answer.headers, body: JSON.parse(answer.body as string) as unknown, lines };
}

it('a domain error keeps its code and message', async () => {
  const { status, body, headers } = await answerFor(new PlanRestrictedError('Beyond the Starter window'));
  expect(status).toBe(403);
  expect(body).toEqual({ success: false, error: { code: 403, type: 'plan_restricted', info: 'Beyond the Starter window' } });
  expect(headers).toEqual({ 'Cache-Control': 'no-store' });
});

it('a 401 carries the Bearer challenge', async () => {
  const { status, headers } = await answerFor(new InvalidApiKeyError('Invalid API key'));
  expect(status).toBe(401);
  expect(headers['WWW-Authenticate']).toBe('Bearer');
});

it('an HTTP refusal carries its own headers', async () => {
  expect((await answerFor(new MethodNotAllowedError('GET, HEAD, OPTIONS'))).headers).toMatchObject({ Allow: 'GET, HEAD, OPTIONS' });
  const limited = await answerFor(new RateLimitedError('Rate limit exceeded', { 'Retry-After': '60', 'X-RateLimit-Remaining': '0' }));
  expect(limited.status).toBe(429);
  expect(limited.headers).toMatchObject({ 'Retry-After': '60', 'X-RateLimit-Remaining': '0', 'Cache-Control': 'no-store' });
});

it('a domain error wrapped by GraphQL execution is unwrapped', async () => {
  const wrapped = new GraphQLError('ignored', { path: ['latest'], originalError: new BadRequestError('symbols: XYZ is not served') });
  const { status, body } = await answerFor(wrapped);
  expect(status).toBe(400);
  expect(body).toMatchObject({ error: { type: 'bad_request', info: 'symbols: XYZ is not served' } });
});

it('a GraphQL error of the request itself (a refused variable) is 400', async () => {
  const { status, body } = await answerFor(new GraphQLError('Variable "$amount" got invalid value "x"'));
  expect(status).toBe(400);
  expect(body).toMatchObject({ error: { type: 'bad_request' } });
});

it.each([
  ['a plain Error', new Error('boom')],
  ['a resolver fault inside GraphQL', new GraphQLError('boom', { path: ['latest'], originalError: new TypeError('x is undefined') })],
  ['a thrown string', 'boom'],
])('%s is logged and answered 503 with the request id, no detail', async (_label, error) => {
  const { status, body, lines } = await answerFor(error);
  expect(status).toBe(503);
  expect(body).toEqual({
    success: false,
    error: { code: 503, type: 'service_unavailable', info: 'The service could not answer this request; try again later (request req-1)' },
  });
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({ requestId: 'req-1', msg: 'request failed' });
});

it('a request that succeeds is left alone', async () => {
  const { step } = captured();
  const exchange = exchangeOf('/latest');
  await step(exchange, recordingNext());
  expect(exchange.answer).toBeNull();
});

it('the envelope drops the tag of the answer it replaces, and keeps the headers of the request itself', async () => {
  const { step } = captured();
  const exchange = exchangeOf('/latest');
  await step(
    exchange,
    recordingNext((ex) => {
      ex.headers.ETag = '"tag-of-the-refused-answer"';
      ex.headers['X-RateLimit-Remaining-Monthly'] = '0';
      throw new RateLimitedError('Monthly quota exceeded', {});
    }),
  );
  expect(exchange.answer!.status).toBe(429);
  expect(exchange.headers.ETag).toBeUndefined();
  expect(exchange.headers['X-RateLimit-Remaining-Monthly']).toBe('0');
});
