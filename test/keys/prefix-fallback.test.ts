// D18 (docs/decisions.md): when the suburb names run out, a key's prefix is a suburb with a digit
// suffix, still never used by another key. firstFreeVariant picks the suffix; the service falls
// back to it once random suburbs keep colliding (here: every suburb is already taken).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstFreeVariant, keyPrefix, suburbNames } from '../../src/domain/api-key.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { graphql } from '../../src/graphql.js';

describe('firstFreeVariant', () => {
  it('is the name itself while it is free', () => {
    expect(firstFreeVariant('bondi', new Set())).toBe('bondi');
    expect(firstFreeVariant('bondi', new Set(['bondijunction', 'bondi2']))).toBe('bondi');
  });

  it('numbers from 2, taking the lowest free number', () => {
    expect(firstFreeVariant('bondi', new Set(['bondi']))).toBe('bondi2');
    expect(firstFreeVariant('bondi', new Set(['bondi', 'bondi2', 'bondi3']))).toBe('bondi4');
    expect(firstFreeVariant('bondi', new Set(['bondi', 'bondi3']))).toBe('bondi2');
    const many = new Set(['bondi', ...Array.from({ length: 98 }, (_, i) => `bondi${i + 2}`)]);
    expect(firstFreeVariant('bondi', many)).toBe('bondi100');
  });

  it('gives a prefix a key can carry', () => {
    const prefix = firstFreeVariant('bondi', new Set(['bondi']));
    expect(keyPrefix(`${prefix}_${'a'.repeat(56)}`)).toBe(prefix);
  });
});

describe('key creation when every suburb is taken', () => {
  let t: TestApp;
  const EMAIL = 'fallback@example.test';
  beforeAll(async () => {
    t = await startTestApp({ now: new Date().toISOString() });
    await t.importFixture('f11.1-data.csv');
    const { data } = await t.operator(graphql('mutation($e: EmailAddress!) { createAccount(email: $e, plan: business) { id } }'), { e: EMAIL });
    const accountId = data!.createAccount.id;
    const names = suburbNames();
    for (let i = 0; i < names.length; i += 2000) {
      await t.db
        .insertInto('api_keys')
        .values(
          names
            .slice(i, i + 2000)
            .map((prefix) => ({ account_id: accountId, prefix, key_hash: `taken-${prefix}`, last_four: 'xxxx', status: 'revoked' as const })),
        )
        .execute();
    }
  }, 60_000);
  afterAll(() => t?.close());

  it('numbers a suburb, and each new key gets a prefix of its own that works', { timeout: 30_000 }, async () => {
    const suburbs = new Set(suburbNames());
    const prefixes: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { data, errors } = await t.operator(graphql('mutation($e: EmailAddress!) { createApiKey(email: $e) { key apiKey { prefix } } }'), { e: EMAIL });
      expect(errors).toBeUndefined();
      const { key, apiKey } = data!.createApiKey;
      const match = /^([a-z]+)([0-9]+)$/.exec(apiKey.prefix);
      expect(match, apiKey.prefix).not.toBeNull();
      expect(suburbs.has(match![1]!)).toBe(true);
      expect(Number(match![2])).toBeGreaterThanOrEqual(2);
      expect(key).toMatch(new RegExp(`^${apiKey.prefix}_[A-Za-z0-9]{56}$`));
      expect((await t.request('/latest', { key })).status).toBe(200);
      prefixes.push(apiKey.prefix);
    }
    expect(new Set(prefixes).size).toBe(3);
    const stored = await t.db.selectFrom('api_keys').select('prefix').where('prefix', 'in', prefixes).execute();
    expect(stored).toHaveLength(3);
  });
});
