// D26 (docs/decisions.md): a route that takes a body gets JSON of at most 16 KiB, read before its
// parameters; other routes read none.
import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../../src/errors.js';
import { MAX_BODY_BYTES, readLimited } from '../../../src/rest/body.js';
import { readBody } from '../../../src/rest/steps/body.js';
import { recordingNext, routedExchange } from './support.js';

const create = (headers: Record<string, string>, body = '{"url":"https://example.com/hook"}') =>
  routedExchange('CreateWebhookSubscription', '/api/webhook-subscriptions', { method: 'POST', headers, body });

it('reads a JSON body and hands on', async () => {
  const exchange = create({ 'Content-Type': 'application/json; charset=utf-8' });
  const next = recordingNext();
  await readBody(exchange, next);
  expect(exchange.body).toBe('{"url":"https://example.com/hook"}');
  expect(next.calls).toBe(1);
});

it.each([
  ['missing', {}],
  ['form data', { 'Content-Type': 'application/x-www-form-urlencoded' }],
  ['text', { 'Content-Type': 'text/plain' }],
  ['a JSON-like type', { 'Content-Type': 'application/jsonx' }],
])('refuses a content type %s with 400 before reading', async (_label, headers) => {
  const next = recordingNext();
  await expect((async () => readBody(create(headers), next))()).rejects.toThrow(/Content-Type: application\/json/);
  expect(next.calls).toBe(0);
});

it('reads no body for a route without one', async () => {
  const exchange = routedExchange('Latest', '/latest', { body: 'ignored' });
  await readBody(exchange, recordingNext());
  expect(exchange.body).toBeNull();
});

describe('reading to the limit (the transports read with readLimited)', () => {
  const chunks = async function* (...parts: Uint8Array[]) {
    yield* parts;
  };

  it('takes exactly 16 KiB', async () => {
    expect(await readLimited(chunks(Buffer.alloc(MAX_BODY_BYTES, 'a')), MAX_BODY_BYTES)).toHaveLength(MAX_BODY_BYTES);
  });

  it('refuses a byte more', async () => {
    await expect(readLimited(chunks(Buffer.alloc(MAX_BODY_BYTES), Buffer.from('x')), MAX_BODY_BYTES)).rejects.toThrow(/too large/);
  });

  it('refuses bytes that are not UTF-8', async () => {
    await expect(readLimited(chunks(Buffer.from([0x7b, 0xff, 0x7d])), MAX_BODY_BYTES)).rejects.toBeInstanceOf(BadRequestError);
  });
});
