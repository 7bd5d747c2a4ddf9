// Identical read requests share an answer for a second (src/rest/response-cache.ts): the answer of
// a cacheable route depends only on its path and query, the viewer's plan, the stored rates and the
// time. Keys, limits, usage and request ids stay per request: the steps before this one run for each.
// A 404 (no rates for that day or range) is as much the data's answer as a 200, and shared the same
// way, so that a refused request never costs more than an answered one.
import { NotFoundError } from '../../errors.js';
import type { Step } from '../exchange.js';
import { negotiate } from '../representations.js';
import { ResponseCache } from '../response-cache.js';
import { representationsOf } from '../route.js';

/** how long identical requests share an answer (the stale flag and "today" move with the clock) */
const RESPONSE_TTL_MS = 1_000;

export function sharedAnswers(clock: () => Date, generation: () => number): Step {
  const answers = new ResponseCache(RESPONSE_TTL_MS, clock, generation);
  return async (exchange, next) => {
    if (!exchange.route!.cacheable) return next(exchange);
    const { url } = exchange.request;
    // a route with several representations keeps its answers in each apart
    const route = exchange.route!;
    const representation = route.files ? negotiate(exchange.request.header('accept'), representationsOf(route)) : 'json';
    const key = `${exchange.viewer?.plan ?? '-'} ${representation} ${url.pathname}${url.search}`;
    const shared = answers.get(key);
    if (shared) {
      exchange.shared = true;
      if (shared instanceof NotFoundError) throw shared;
      exchange.answer = shared;
      return;
    }
    // read before the answer is computed: a change meanwhile makes the answer stale at once
    const before = generation();
    try {
      await next(exchange);
    } catch (error) {
      if (error instanceof NotFoundError) answers.set(key, error, before);
      throw error;
    }
    if (exchange.answer!.status === 200) answers.set(key, exchange.answer!, before);
  };
}
