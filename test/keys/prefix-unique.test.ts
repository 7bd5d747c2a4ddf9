// D18 (docs/decisions.md): a key's prefix is never used by another key, revoked ones included. Many
// keys are issued through the real app's internal endpoint, the operation `cli key create` runs (a
// Free account, so each new key revokes the one before it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suburbNames } from '../../src/domain/api-key.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { graphql } from '../../src/graphql.js';

const KEYS = 300;
const EMAIL = 'many-keys@example.test';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ now: new Date().toISOString() });
  const { errors } = await t.operator(graphql('mutation($e: EmailAddress!) { createAccount(email: $e, plan: free) { id } }'), { e: EMAIL });
  expect(errors).toBeUndefined();
}, 60_000);
afterAll(() => t?.close());

describe('key prefixes', () => {
  const prefixes: string[] = [];

  it(`are all different over ${KEYS} keys, each a real suburb`, { timeout: 60_000 }, async () => {
    for (let i = 0; i < KEYS; i++) {
      const { data, errors } = await t.operator(graphql('mutation($e: EmailAddress!) { createApiKey(email: $e) { key apiKey { prefix } } }'), { e: EMAIL });
      expect(errors).toBeUndefined();
      const { key, apiKey } = data!.createApiKey;
      expect(key.startsWith(`${apiKey.prefix}_`)).toBe(true);
      prefixes.push(apiKey.prefix);
    }
    expect(new Set(prefixes).size).toBe(KEYS);
    const suburbs = new Set(suburbNames());
    for (const prefix of prefixes) expect(suburbs.has(prefix), prefix).toBe(true);
  });

  it('are unique in the store, where every earlier key is revoked', async () => {
    const rows = await t.db.selectFrom('api_keys').select(['prefix', 'status']).execute();
    expect(rows).toHaveLength(KEYS);
    expect(new Set(rows.map((r) => r.prefix))).toEqual(new Set(prefixes));
    expect(rows.filter((r) => r.status === 'active').map((r) => r.prefix)).toEqual([prefixes.at(-1)]);
  });
});
