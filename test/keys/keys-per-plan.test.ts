// docs/api.md §3, §5.6 and §8: how many keys each plan holds. On Free and Starter `cli key create`
// replaces the account's key: the old one is refused at once (401 invalid_api_key from the running
// service), the new one works. Professional holds up to 5 active keys: `cli key create` beyond
// that is refused (exit 1, one {"error"} naming the limit) and changes nothing; each key is revoked
// on its own, and a revoked key frees a place. Business and Enterprise hold 10 and 20.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  accountWithKeyVia,
  createAccountVia,
  createKeyVia,
  importFixtureVia,
  oneJson,
  runCli,
  serviceOnOwnStore,
  succeeded,
  whileKeyInUse,
} from '../support/cli.js';
import { graphql } from '../../src/graphql.js';

const { store, service } = serviceOnOwnStore();
beforeAll(async () => {
  await importFixtureVia(service, 'f11.1-data.csv');
});

const statusOf = async (key: string) => (await service.get('/latest?symbols=USD', key)).status;
const revokeVia = (prefix: string) => service.operator(graphql('mutation($p: Text!) { revokeApiKey(prefix: $p) { id } }'), { p: prefix });

// Each plan has an account of its own, so the three run side by side.
describe.concurrent('keys per plan', () => {
  it.each(['free', 'starter'] as const)('%s: a new key replaces the old one, which is refused at once', { timeout: 60_000 }, async (plan) => {
    const email = `single-${plan}@example.test`;
    const first = await accountWithKeyVia(service, email, plan);
    expect(await statusOf(first.key)).toBe(200);

    // The old key is in use while the new one is made, so the service has it cached.
    const second = succeeded(await whileKeyInUse(service, first.key, () => runCli(['key', 'create', '--email', email], store.env))) as {
      key: string;
      prefix: string;
    };
    expect(second.key).not.toBe(first.key);
    expect(second.prefix).not.toBe(first.prefix);

    const old = await service.get('/latest?symbols=USD', first.key);
    expect(old.status).toBe(401);
    expect(old.body).toMatchObject({ success: false, error: { code: 401, type: 'invalid_api_key' } });
    const current = await service.get('/latest?symbols=USD', second.key);
    expect(current.status).toBe(200);
    expect(current.body).toMatchObject({ success: true, rates: { USD: 0.7013 } });
    // The old key is revoked, not merely hidden.
    await expect(revokeVia(first.prefix)).rejects.toThrow(`No active API key with prefix ${first.prefix}`);
  });

  it('professional: five keys; a sixth is refused naming the limit; each is revoked on its own', { timeout: 90_000 }, async () => {
    const email = 'pro@example.test';
    const keys = await createAccountVia(service, email, 'professional', 5);
    expect(new Set(keys.map((k) => k.prefix)).size).toBe(5);
    for (const { key } of keys) expect(await statusOf(key)).toBe(200);

    const refused = await runCli(['key', 'create', '--email', email], store.env);
    expect(refused.code).toBe(1);
    const output = oneJson(refused);
    expect(Object.keys(output)).toEqual(['error']);
    expect(output.error).toMatch(/Professional/);
    expect(output.error).toMatch(/\b5\b/);
    for (const { key } of keys) expect(await statusOf(key)).toBe(200);

    // Revoking the second key leaves the others working.
    const [, second, , fourth] = keys as [unknown, { key: string; prefix: string }, unknown, { key: string; prefix: string }];
    const revoked = await whileKeyInUse(service, second.key, () => runCli(['key', 'revoke', '--prefix', second.prefix], store.env));
    expect(succeeded(revoked)).toMatchObject({ prefix: second.prefix, status: 'revoked' });
    expect((await service.get('/latest?symbols=USD', second.key)).body).toMatchObject({ error: { code: 401, type: 'invalid_api_key' } });
    for (const [i, { key }] of keys.entries()) expect(await statusOf(key), `key ${i + 1}`).toBe(i === 1 ? 401 : 200);

    await revokeVia(fourth.prefix);
    for (const [i, { key }] of keys.entries()) expect(await statusOf(key), `key ${i + 1}`).toBe(i === 1 || i === 3 ? 401 : 200);

    // Only active keys count: the two revoked ones make room for two more, then the limit holds again.
    const more = [await createKeyVia(service, email), await createKeyVia(service, email)];
    for (const { key } of more) expect(await statusOf(key)).toBe(200);
    await expect(createKeyVia(service, email)).rejects.toThrow(/Professional plan allows 5 active API keys/);
    expect(await statusOf(keys[0]!.key)).toBe(200);
  });

  it.each([
    ['business', 10, 'Business'],
    ['enterprise', 20, 'Enterprise'],
  ] as const)('%s: holds %i active keys', { timeout: 60_000 }, async (plan, limit, name) => {
    const email = `${plan}@example.test`;
    const issued = await createAccountVia(service, email, plan, limit);
    expect(new Set(issued.map((k) => k.prefix)).size).toBe(limit);
    await expect(createKeyVia(service, email)).rejects.toThrow(`${name} plan allows ${limit} active API keys`);
    expect(await statusOf(issued[0]!.key)).toBe(200);
    expect(await statusOf(issued[limit - 1]!.key)).toBe(200);
  });
});
