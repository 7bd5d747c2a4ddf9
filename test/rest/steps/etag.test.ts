// D24 (docs/decisions.md): an ETag on every GET answer; If-None-Match with it is 304 with no body.
import { expect, it } from 'vitest';
import { etag, etagOf } from '../../../src/rest/steps/etag.js';
import { csvBody } from '../../../src/rest/csv.js';
import { answering, recordingNext, routedExchange } from './support.js';

const BODY = '{"success":true,"rates":{"USD":"0.65"}}';

it('tags a GET answer by its body', async () => {
  const exchange = routedExchange('Latest', '/latest');
  await etag(exchange, answering(BODY));
  expect(exchange.headers.ETag).toBe(etagOf(BODY));
  expect(exchange.headers.ETag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
  expect(exchange.answer!.status).toBe(200);
});

it.each([
  ['the same tag', (tag: string) => tag],
  ['a weak form of it', (tag: string) => `W/${tag}`],
  ['one of a list', (tag: string) => `"other", ${tag}`],
  ['*', () => '*'],
])('If-None-Match with %s is 304 without a body, keeping the answer headers', async (_label, header) => {
  const exchange = routedExchange('Latest', '/latest', { headers: { 'If-None-Match': header(etagOf(BODY)) } });
  await etag(exchange, answering(BODY));
  expect(exchange.answer).toEqual({ status: 304, body: null, headers: { 'Cache-Control': 'no-store' } });
  expect(exchange.headers.ETag).toBe(etagOf(BODY));
});

it('another tag is a full answer', async () => {
  const exchange = routedExchange('Latest', '/latest', { headers: { 'If-None-Match': '"nope"' } });
  await etag(exchange, answering(BODY));
  expect(exchange.answer!.status).toBe(200);
});

it('an error answer is tagged but never 304', async () => {
  const exchange = routedExchange('Status', '/status', { headers: { 'If-None-Match': etagOf(BODY) } });
  await etag(exchange, answering(BODY, 503));
  expect(exchange.answer!.status).toBe(503);
});

it('a shared answer is hashed once', async () => {
  const shared = { status: 200, body: BODY, headers: {} };
  const first = routedExchange('Latest', '/latest');
  await etag(
    first,
    recordingNext((e) => void (e.answer = shared)),
  );
  expect(shared).toMatchObject({ etag: etagOf(BODY) });
  shared.body = 'changed after tagging';
  const second = routedExchange('Latest', '/latest');
  await etag(
    second,
    recordingNext((e) => void (e.answer = shared)),
  );
  expect(second.headers.ETag).toBe(etagOf(BODY));
});

it('a change (POST) has no ETag', async () => {
  const exchange = routedExchange('CreateWebhookSubscription', '/api/webhook-subscriptions', { method: 'POST' });
  await etag(exchange, answering(BODY));
  expect(exchange.headers.ETag).toBeUndefined();
});

it('tags a CSV answer by its bytes, hashed row by row, and answers 304 to that tag', async () => {
  const rows = ['date,USD\n', '2023-01-03,0.6828\n'];
  const answeringCsv = () =>
    recordingNext((exchange) => {
      exchange.answer = { status: 200, body: csvBody('aud-rates.csv', () => rows), headers: { 'Cache-Control': 'no-store' } };
    });
  const exchange = routedExchange('TimeSeries', '/timeseries');
  await etag(exchange, answeringCsv());
  expect(exchange.headers.ETag).toBe(etagOf(rows.join('')));
  const revalidated = routedExchange('TimeSeries', '/timeseries', { headers: { 'If-None-Match': etagOf(rows.join('')) } });
  await etag(revalidated, answeringCsv());
  expect(revalidated.answer).toEqual({ status: 304, body: null, headers: { 'Cache-Control': 'no-store' } });
});
