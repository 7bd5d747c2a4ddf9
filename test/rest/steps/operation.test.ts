// The endpoint itself: variables from the request, the operation in the real schema, the JSON of
// docs/api.md from its result.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BadRequestError } from '../../../src/errors.js';
import { routes } from '../../../src/rest/routes.js';
import { runOperation } from '../../../src/rest/steps/operation.js';
import { schema } from '../../../src/schema/index.js';
import { VERSION } from '../../../src/version.js';
import type { Step } from '../../../src/rest/exchange.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { recordingNext, routedExchange } from './support.js';

let t: TestApp;
let step: Step;
beforeAll(async () => {
  t = await startTestApp();
  await t.importFixture('f11.1-data.csv');
  step = runOperation(schema, routes, t.app.services, 'https://docs.example.test/api');
});
afterAll(() => t.close());

it('answers a route with its document run and its mapper applied', async () => {
  const exchange = routedExchange('Root', '/');
  await step(exchange, recordingNext());
  expect(exchange.answer!.status).toBe(200);
  expect(exchange.answer!.headers).toEqual({ 'Cache-Control': 'no-cache' });
  expect(JSON.parse(exchange.answer!.body!)).toMatchObject({ success: true, documentation: 'https://docs.example.test/api', version: VERSION });
});

it('reads the rates with the request context, kept for the steps on the way back', async () => {
  const exchange = routedExchange('RateDayCurrency', '/2023-01-03/USD');
  exchange.params = { date: '2023-01-03', currency: 'USD' };
  exchange.viewer = { kind: 'apiKey', accountId: 'a', keyId: 'k', plan: 'business', billingDay: 1 };
  await step(exchange, recordingNext());
  expect(JSON.parse(exchange.answer!.body!)).toMatchObject({ success: true, date: '2023-01-03', base: 'AUD', rates: { USD: expect.any(Number) } });
  expect((await exchange.context!.rates.history()).newestDate).not.toBeNull();
});

it('throws a parameter fault before running anything', async () => {
  const exchange = routedExchange('Latest', '/latest?symbols=XYZ');
  exchange.viewer = { kind: 'apiKey', accountId: 'a', keyId: 'k', plan: 'business', billingDay: 1 };
  await expect(step(exchange, recordingNext())).rejects.toBeInstanceOf(BadRequestError);
  expect(exchange.context).toBeNull();
});
