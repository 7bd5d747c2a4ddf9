// Key restrictions with two service processes on one Postgres database: a key's monthly cap is exact
// across them (50 concurrent requests, exactly the cap succeed, the key's and the account's counts
// agree), and a restriction changed through one process is applied by the other, which had the key
// cached, as soon as the change returns; clearing it likewise.
import { describe, expect, it } from 'vitest';
import { graphql } from '../../src/graphql.js';
import { accountWithKeyVia, servicesOnOneStore, whileKeyInUse } from '../support/cli.js';

const PROCESSES = 2;
const RESTRICT = graphql(
  'mutation($p: Text!, $r: KeyRestrictionsInput, $c: Boolean) { restrictApiKey(prefix: $p, restrictions: $r, clear: $c) { restrictions { capUsed } } }',
);

describe.skipIf(!process.env.DATABASE_URL)('key restrictions across two service processes on one Postgres', () => {
  const { store, services } = servicesOnOneStore(PROCESSES, 'f11.1-data.csv');

  async function burst(count: number, path: string, key: string): Promise<{ status: number; info: string | null }[]> {
    return Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const response = await fetch(`${services[i % PROCESSES]!.publicUrl}${path}`, { headers: { Authorization: `Bearer ${key}` } });
        const body = (await response.json()) as { error?: { info: string } };
        return { status: response.status, info: body.error?.info ?? null };
      }),
    );
  }

  it('gives exactly the cap to 50 concurrent requests spread over both processes', async () => {
    const email = 'mp-cap@example.test';
    const { key, prefix } = await accountWithKeyVia(services[0]!, email, 'professional');
    await services[1]!.operator(RESTRICT, { p: prefix, r: { monthlyCap: 17 } });
    const answers = await burst(50, '/latest?symbols=USD', key);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(17);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(33);
    for (const { info } of refused) expect(info).toMatch(/monthly cap of 17 requests/);
    const counts = await store.withDb(async (db) => ({
      account: (await db.selectFrom('accounts').select('quota_used').where('email', '=', email).executeTakeFirstOrThrow()).quota_used,
      key: (await db.selectFrom('api_keys').select('cap_used').where('prefix', '=', prefix).executeTakeFirstOrThrow()).cap_used,
    }));
    expect(counts).toEqual({ account: 17, key: 17 });
  });

  it('applies a change made through one process at once on the other, which had the key cached', async () => {
    const { key, prefix } = await accountWithKeyVia(services[0]!, 'mp-restrict@example.test', 'professional');
    expect((await services[1]!.get('/latest?symbols=USD', key)).status).toBe(200);
    await whileKeyInUse(services[1]!, key, () => services[0]!.operator(RESTRICT, { p: prefix, r: { allowedEndpoints: ['historical'] } }));
    const refused = await services[1]!.get('/latest?symbols=USD', key);
    expect(refused.status).toBe(403);
    expect(refused.body.error.type).toBe('key_restricted');

    await whileKeyInUse(services[1]!, key, () => services[0]!.operator(RESTRICT, { p: prefix, r: { allowedIps: ['203.0.113.0/24'], allowedEndpoints: null } }));
    expect((await services[1]!.get('/latest?symbols=USD', key)).body.error.info).toMatch(/allowedIps/);

    await whileKeyInUse(services[1]!, key, () => services[0]!.operator(RESTRICT, { p: prefix, c: true }));
    expect((await services[1]!.get('/latest?symbols=USD', key)).status).toBe(200);
  });
});
