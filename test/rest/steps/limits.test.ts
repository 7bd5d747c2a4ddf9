// D11 (docs/decisions.md): quotas and limits are granted last, only to a request about to succeed.
import { identifyPeer } from '../../../src/rest/client-address.js';
import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../../src/errors.js';
import { RateLimitedError } from '../../../src/http/http-errors.js';
import type { RequestLimits } from '../../../src/rest/limits.js';
import { limits } from '../../../src/rest/steps/limits.js';
import { quotaStanding } from '../../../src/rest/steps/quota-standing.js';
import { answering, recordingNext, routedExchange } from './support.js';

/** The limits as the facade sees them: admit() with what it was asked. */
function admitting(result: () => Record<string, string>) {
  const asked: Parameters<RequestLimits['admit']>[] = [];
  const step = limits({
    admit: async (...args) => {
      asked.push(args);
      return result();
    },
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
  expect(asked).toEqual([[exchange.endpoint, null, '203.0.113.7']]);
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

describe('the quota as it stands, on a keyed refusal', () => {
  const viewer = { kind: 'apiKey', accountId: 'a', keyId: 'k', plan: 'professional', billingDay: 1 } as const;
  const step = quotaStanding({ standing: async () => ({ 'X-RateLimit-Remaining-Monthly': '7' }) });

  it('tells a keyed request refused after its key was known where its quota stands', async () => {
    const exchange = routed();
    exchange.viewer = viewer;
    const failing = recordingNext(() => {
      throw new NotFoundError('No rates for that date');
    });
    await expect(step(exchange, failing)).rejects.toBeInstanceOf(NotFoundError);
    expect(exchange.headers['X-RateLimit-Remaining-Monthly']).toBe('7');
  });

  it('adds nothing to a 429, which carries its own, nor to a request without a key', async () => {
    const keyed = routed();
    keyed.viewer = viewer;
    await expect(
      step(
        keyed,
        recordingNext(() => Promise.reject(new RateLimitedError('over'))),
      ),
    ).rejects.toBeInstanceOf(RateLimitedError);
    expect(keyed.headers['X-RateLimit-Remaining-Monthly']).toBeUndefined();
    const keyless = routed();
    await expect(
      step(
        keyless,
        recordingNext(() => Promise.reject(new NotFoundError('none'))),
      ),
    ).rejects.toBeInstanceOf(NotFoundError);
    expect(keyless.headers).toEqual({});
  });
});
