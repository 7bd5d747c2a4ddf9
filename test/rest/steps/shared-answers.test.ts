// Identical read requests share an answer for under a second, per plan, until the rates change.
import { expect, it } from 'vitest';
import { NotFoundError } from '../../../src/errors.js';
import type { ApiKeyViewer } from '../../../src/schema/context.js';
import { sharedAnswers } from '../../../src/rest/steps/shared-answers.js';
import { answering, recordingNext, routedExchange, type RequestParts } from './support.js';

function setUp() {
  let now = new Date('2026-05-12T03:00:00Z');
  let generation = 1;
  const step = sharedAnswers(
    () => now,
    () => generation,
  );
  return {
    step,
    advance: (ms: number) => (now = new Date(now.getTime() + ms)),
    ratesChanged: () => generation++,
  };
}

const viewer = (plan: ApiKeyViewer['plan']): ApiKeyViewer => ({ kind: 'apiKey', accountId: 'a', keyId: 'k', plan, billingDay: 1 });
const latest = (plan: ApiKeyViewer['plan'] = 'professional', target = '/latest?symbols=USD') => {
  const exchange = routedExchange('Latest', target);
  exchange.viewer = viewer(plan);
  return exchange;
};

it('answers an identical request from the first one, without running the rest', async () => {
  const { step } = setUp();
  const first = answering('{"n":1}');
  await step(latest(), first);
  const again = latest();
  const second = answering('{"n":2}');
  await step(again, second);
  expect(second.calls).toBe(0);
  expect(again.answer!.body).toBe('{"n":1}');
  expect(again.shared).toBe(true);
});

it('keeps answers apart by plan and by query', async () => {
  const { step } = setUp();
  await step(latest('professional'), answering('{"plan":"professional"}'));
  const starter = answering('{"plan":"starter"}');
  await step(latest('starter'), starter);
  expect(starter.calls).toBe(1);
  const other = answering();
  await step(latest('professional', '/latest?symbols=EUR'), other);
  expect(other.calls).toBe(1);
});

it('drops an answer after a second and when the rates change', async () => {
  const { step, advance, ratesChanged } = setUp();
  await step(latest(), answering());
  advance(999);
  const within = answering();
  await step(latest(), within);
  expect(within.calls).toBe(0);
  advance(1);
  const after = answering();
  await step(latest(), after);
  expect(after.calls).toBe(1);
  ratesChanged();
  const changed = answering();
  await step(latest(), changed);
  expect(changed.calls).toBe(1);
});

it('keeps no refusal and nothing of a route that may not share', async () => {
  const { step } = setUp();
  await step(latest(), answering('{}', 503));
  const retried = answering();
  await step(latest(), retried);
  expect(retried.calls).toBe(1);
  const status = () => routedExchange('Status', '/status');
  await step(status(), answering());
  const again = answering();
  await step(status(), again);
  expect(again.calls).toBe(1);
});

it('keeps the JSON and CSV answers of a route with two representations apart', async () => {
  const { step } = setUp();
  const series = (parts: RequestParts = {}) => {
    const exchange = routedExchange('TimeSeries', '/timeseries?start_date=2023-01-03&end_date=2023-01-04', parts);
    exchange.viewer = viewer('business');
    return exchange;
  };
  await step(series(), answering('{"json":true}'));
  const csv = answering('date,USD\n');
  const asCsv = series({ headers: { Accept: 'text/csv' } });
  await step(asCsv, csv);
  expect(csv.calls).toBe(1);
  const csvAgain = series({ headers: { Accept: 'text/csv' } });
  await step(csvAgain, answering());
  expect(csvAgain.answer!.body).toBe('date,USD\n');
  const jsonAgain = series({ headers: { Accept: 'application/json' } });
  await step(jsonAgain, answering());
  expect(jsonAgain.answer!.body).toBe('{"json":true}');
});

it('shares a day without rates (404) as it shares an answer, so a refusal costs no more than an answer', async () => {
  const { step, ratesChanged } = setUp();
  const refusal = new NotFoundError('No rates for 2024-01-06');
  const first = recordingNext(() => {
    throw refusal;
  });
  await expect(step(latest(), first)).rejects.toBe(refusal);
  const again = latest();
  const second = recordingNext();
  await expect(step(again, second)).rejects.toBe(refusal);
  expect(second.calls).toBe(0);
  expect(again.shared).toBe(true);
  ratesChanged();
  const changed = answering();
  await step(latest(), changed);
  expect(changed.calls).toBe(1);
});
