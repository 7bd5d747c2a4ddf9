// D11 (docs/decisions.md): quotas and limits are granted last, only to a request about to succeed.
import { identifyPeer } from '../../../src/rest/client-address.js';
import { expect, it } from 'vitest';
import { NotFoundError } from '../../../src/errors.js';
import { RateLimitedError } from '../../../src/http/http-errors.js';
import type { RequestLimits } from '../../../src/rest/limits.js';
import { limits } from '../../../src/rest/steps/limits.js';
import { answering, recordingNext, routedExchange } from './support.js';

/** The limits as the facade sees them: admit() with what it was asked. */
function admitting(result: () => Record<string, string>) {
  const asked: Parameters<RequestLimits['admit']>[] = [];
  const step = limits({
    admit: async (...args) => {
      asked.push(args);
      return result();
    },
    standing: async () => ({ 'X-RateLimit-Remaining-Monthly': '7' }),
  });
  return { step, asked };
}

const routed = () => {
  const exchange = routedExchange('Convert', '/convert?from=USD&to=EUR&amount=1', { remoteAddress: '203.0.113.7' });
  exchange.peer = identifyPeer('203.0.113.7', null, []);
  return exchange;
};

it('admits a request that succeeded and adds its headers', async () => {
  const { step, asked } = admitting(() => ({ 'X-RateLimit-Remaining': '2' }));
  const exchange = routed();
  await step(exchange, answering());
  expect(asked).toEqual([[exchange.route, null, '203.0.113.7']]);
  expect(exchange.headers['X-RateLimit-Remaining']).toBe('2');
});

it('takes nothing from a request that failed', async () => {
  const { step, asked } = admitting(() => ({}));
  const failing = recordingNext(() => {
    throw new NotFoundError('No rates for that date');
  });
  await expect(step(routed(), failing)).rejects.toBeInstanceOf(NotFoundError);
  expect(asked).toEqual([]);
});

it('lets a refusal through', async () => {
  const { step } = admitting(() => {
    throw new RateLimitedError('Rate limit exceeded. Try again in 60 seconds.', { 'Retry-After': '60' });
  });
  await expect(step(routed(), answering())).rejects.toBeInstanceOf(RateLimitedError);
});
