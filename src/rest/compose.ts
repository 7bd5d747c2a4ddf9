// Chains steps into one function, once at start-up: each step's `next` is the chain after it.
import type { Exchange, Next, Step } from './exchange.js';

const done: Next = () => Promise.resolve();

export function compose(steps: readonly Step[]): Next {
  let chain = done;
  for (let i = steps.length - 1; i >= 0; i--) {
    const step = steps[i]!;
    const next = chain;
    chain = (exchange: Exchange) => step(exchange, next);
  }
  return chain;
}
