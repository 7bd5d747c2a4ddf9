// The chain of steps: each runs in order on the way in and in reverse on the way out, a step that
// does not call next ends the way in, and one chain serves every request.
import { expect, it } from 'vitest';
import { compose } from '../../../src/rest/compose.js';
import type { Step } from '../../../src/rest/exchange.js';
import { exchangeOf } from './support.js';

const trace: string[] = [];
const around =
  (name: string): Step =>
  async (exchange, next) => {
    trace.push(`${name} in`);
    await next(exchange);
    trace.push(`${name} out`);
  };
const stop: Step = async (exchange) => {
  trace.push('stop');
  exchange.answer = { status: 204, body: null, headers: {} };
};

it('runs the steps in order, each around the rest', async () => {
  trace.length = 0;
  const chain = compose([around('a'), around('b'), stop, around('never')]);
  const exchange = exchangeOf('/');
  await chain(exchange);
  expect(trace).toEqual(['a in', 'b in', 'stop', 'b out', 'a out']);
  expect(exchange.answer!.status).toBe(204);
});

it('lets a throw travel back through the steps before it', async () => {
  trace.length = 0;
  const failing: Step = async () => {
    throw new Error('no');
  };
  await expect(compose([around('a'), failing])(exchangeOf('/'))).rejects.toThrow('no');
  expect(trace).toEqual(['a in']);
});

it('ends with nothing after the last step', async () => {
  trace.length = 0;
  await compose([around('only')])(exchangeOf('/'));
  expect(trace).toEqual(['only in', 'only out']);
});
