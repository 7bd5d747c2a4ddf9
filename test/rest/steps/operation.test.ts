// The endpoint itself: variables from the request, the operation in the real schema, the JSON of
// docs/api.md from its result.
import { RequestCache } from '@pothos/plugin-scope-auth';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BadRequestError } from '../../../src/errors.js';
import { StreamedBody } from '../../../src/rest/streamed-body.js';
import { routes } from '../../../src/rest/routes.js';
import { routeRunner, runOperation } from '../../../src/rest/steps/operation.js';
import { builder } from '../../../src/schema/builder.js';
import { VERSION } from '../../../src/version.js';
import type { Step } from '../../../src/rest/exchange.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { recordingNext, routedExchange } from './support.js';

let t: TestApp;
let step: Step;
beforeAll(async () => {
  t = await startTestApp();
  await t.importFixture('f11.1-data.csv');
  step = runOperation(routeRunner(t.app.executor, routes, 'https://docs.example.test/api'));
});
afterAll(() => t.close());

it('answers a route with its document run and its mapper applied', async () => {
  const exchange = routedExchange('Root', '/');
  await step(exchange, recordingNext());
  expect(exchange.answer!.status).toBe(200);
  expect(exchange.answer!.headers).toEqual({ 'Cache-Control': 'no-cache' });
  expect(JSON.parse(exchange.answer!.body as string)).toMatchObject({ success: true, documentation: 'https://docs.example.test/api', version: VERSION });
});

it('reads the rates with the request context, kept for the steps on the way back', async () => {
  const exchange = routedExchange('RateDayCurrency', '/2023-01-03/USD');
  exchange.params = { date: '2023-01-03', currency: 'USD' };
  exchange.viewer = { kind: 'apiKey', accountId: 'a', keyId: 'k', plan: 'business', billingDay: 1 };
  await step(exchange, recordingNext());
  expect(JSON.parse(exchange.answer!.body as string)).toMatchObject({ success: true, date: '2023-01-03', base: 'AUD', rates: { USD: expect.any(Number) } });
  expect((await exchange.context!.rates.history()).newestDate).not.toBeNull();
});

it('throws a parameter fault before running anything', async () => {
  const exchange = routedExchange('Latest', '/latest?symbols=XYZ');
  exchange.viewer = { kind: 'apiKey', accountId: 'a', keyId: 'k', plan: 'business', billingDay: 1 };
  await expect(step(exchange, recordingNext())).rejects.toBeInstanceOf(BadRequestError);
  expect(exchange.context).toBeNull();
});

it('answers a route with file representations as CSV when Accept prefers it, JSON otherwise, Vary: Accept on both', async () => {
  const target = '/timeseries?start_date=2023-01-03&end_date=2023-01-04&symbols=USD,EUR';
  const viewer = { kind: 'apiKey', accountId: 'a', keyId: 'k', plan: 'business', billingDay: 1 } as const;
  const csv = routedExchange('TimeSeries', target, { headers: { Accept: 'text/csv' } });
  csv.viewer = viewer;
  await step(csv, recordingNext());
  const table = csv.answer!.body;
  expect(table).toBeInstanceOf(StreamedBody);
  expect(csv.answer!.headers).toEqual({
    'Cache-Control': 'no-store',
    Vary: 'Accept',
    'Content-Type': 'text/csv; charset=utf-8',
    'Content-Disposition': 'attachment; filename="aud-rates_2023-01-03_2023-01-04.csv"',
  });
  expect([...(table as StreamedBody).chunks()][0]).toBe('date,USD,EUR\n');

  const json = routedExchange('TimeSeries', target, { headers: { Accept: 'application/json, text/csv;q=0.5' } });
  json.viewer = viewer;
  await step(json, recordingNext());
  expect(json.answer!.headers).toEqual({ 'Cache-Control': 'no-store', Vary: 'Accept' });
  expect(JSON.parse(json.answer!.body as string)).toMatchObject({ success: true, timeseries: true });
});

it('a route without a CSV representation answers JSON to Accept: text/csv', async () => {
  const exchange = routedExchange('Root', '/', { headers: { Accept: 'text/csv' } });
  await step(exchange, recordingNext());
  expect(exchange.answer!.headers).toEqual({ 'Cache-Control': 'no-cache' });
  expect(typeof exchange.answer!.body).toBe('string');
});

it("drops the request's scope cache when its operation ends, so nothing of it stays in the schema's process-wide caches", async () => {
  // Pothos scope-auth keeps a request's scope cache in a WeakMap keyed by the context: kept
  // there, every busy request's context went to the old generation as garbage (src/schema/context.ts).
  const exchange = routedExchange('RateDayCurrency', '/2023-01-03/USD');
  exchange.params = { date: '2023-01-03', currency: 'USD' };
  exchange.viewer = { kind: 'apiKey', accountId: 'a', keyId: 'k', plan: 'business', billingDay: 1 };
  await step(exchange, recordingNext());
  // The operation evaluated the viewer's scopes (the dated-rates rule); what the context finds in
  // the cache now is a new, empty one.
  expect(RequestCache.fromContext(exchange.context!, builder).scopes).toBeUndefined();
});
