// An answer made in the turn of the event loop that read its request is written at the end of that
// turn, with the turn's other answers; one that waited for I/O is written as soon as it is made.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createEdge } from '../../src/edge.js';
import { endOfTurn } from '../../src/http/end-of-turn.js';
import type { Step } from '../../src/rest/exchange.js';

const logger = pino({ level: 'silent' });
const answer =
  (order: string[], label: string): Step =>
  async (exchange) => {
    exchange.answer = { status: 200, body: label, headers: { 'Content-Type': 'text/plain' } };
    order.push(`${label} answered`);
  };

describe('the edge writes an answer', () => {
  it('made without I/O, once the turn that read its request has ended', async () => {
    const order: string[] = [];
    const edge = createEdge([answer(order, 'at once')], { logger });
    setImmediate(() => order.push('turn ended'));
    const response = await edge.fetch('http://rates.test/');
    order.push('written');
    expect(await response.text()).toBe('at once');
    expect(order).toEqual(['at once answered', 'turn ended', 'written']);
  });

  it('made after I/O, at once, without waiting for another turn', async () => {
    const order: string[] = [];
    const waited: Step = async (exchange, next) => {
      // I/O that ends in a later turn than the one that read the request
      await new Promise((resolve) => setImmediate(resolve));
      setImmediate(() => order.push('next turn ended'));
      return next(exchange);
    };
    const edge = createEdge([waited, answer(order, 'later')], { logger });
    const response = await edge.fetch('http://rates.test/');
    order.push('written');
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['later answered', 'written', 'next turn ended']);
    expect(response.status).toBe(200);
  });

  it('of many requests read in one turn, all after the turn', async () => {
    const order: string[] = [];
    const edge = createEdge([answer(order, 'one')], { logger });
    setImmediate(() => order.push('turn ended'));
    const written = async () => {
      await edge.fetch('http://rates.test/');
      order.push('written');
    };
    await Promise.all([written(), written(), written()]);
    expect(order).toEqual(['one answered', 'one answered', 'one answered', 'turn ended', 'written', 'written', 'written']);
  });
});

describe('endOfTurn', () => {
  it('is one promise for a turn, and a new one for the next', async () => {
    const first = endOfTurn();
    expect(endOfTurn()).toBe(first);
    await first;
    expect(endOfTurn()).not.toBe(first);
  });
});
