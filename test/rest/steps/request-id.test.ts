// D21 (docs/decisions.md): the client's X-Request-Id when it is safe to echo, a new UUID otherwise.
import { expect, it } from 'vitest';
import { requestId } from '../../../src/rest/steps/request-id.js';
import { UUID } from '../../support/expect.js';
import { exchangeOf, recordingNext } from './support.js';

it('echoes a plain client id and hands on', async () => {
  const exchange = exchangeOf('/latest', { headers: { 'X-Request-Id': 'trace-42.a:b' } });
  const next = recordingNext();
  await requestId(exchange, next);
  expect(exchange.requestId).toBe('trace-42.a:b');
  expect(exchange.headers['X-Request-Id']).toBe('trace-42.a:b');
  expect(next.calls).toBe(1);
});

it.each([
  ['missing', undefined],
  ['with a space', 'a b'],
  ['too long', 'x'.repeat(129)],
  ['with a newline', 'a\nb'],
  ['unicode', 'ü'],
])('makes a new UUID for an id %s', async (_label, sent) => {
  const exchange = exchangeOf('/latest', sent === undefined ? {} : { headers: { 'X-Request-Id': sent } });
  await requestId(exchange, recordingNext());
  expect(exchange.requestId).toMatch(UUID);
  expect(exchange.headers['X-Request-Id']).toBe(exchange.requestId);
});
