// Several service processes on one Postgres database (issue: exact under concurrency, across
// processes): the monthly quota, the keyless hourly limit and revocations hold for all of them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingPeriod } from '../../src/domain/billing.js';
import { createCliStore, importFixtureVia, startService, type CliStore, type RunningService } from '../support/cli.js';

const PROCESSES = 3;
const LIMIT = 50_000; // Professional

describe.skipIf(!process.env.DATABASE_URL)('three service processes sharing one Postgres', () => {
  let store: CliStore;
  let services: RunningService[] = [];
  const dirs: string[] = [];

  beforeAll(async () => {
    store = await createCliStore();
    services = await Promise.all(
      Array.from({ length: PROCESSES }, () => {
        const dataDir = mkdtempSync(join(tmpdir(), 'aud-rates-mp-'));
        dirs.push(dataDir);
        return startService({ ...store.env, DATA_DIR: dataDir });
      }),
    );
    await importFixtureVia(services[0]!, 'f11.1-data.csv');
  }, 120_000);

  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop()));
    await store?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  async function accountWithKey(email: string): Promise<{ key: string; prefix: string }> {
    await services[0]!.operator('mutation($e: EmailAddress!) { createAccount(email: $e, plan: professional) { id } }', { e: email });
    const { createApiKey } = await services[1]!.operator<{ createApiKey: { key: string; apiKey: { prefix: string } } }>(
      'mutation($e: EmailAddress!) { createApiKey(email: $e) { key apiKey { prefix } } }',
      { e: email },
    );
    return { key: createApiKey.key, prefix: createApiKey.apiKey.prefix };
  }

  /** `count` requests at once, spread over the processes in turn; the statuses in order. */
  async function burst(count: number, path: string, key?: string): Promise<{ status: number; headers: Headers }[]> {
    return Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const response = await fetch(`${services[i % PROCESSES]!.publicUrl}${path}`, {
          headers: key ? { Authorization: `Bearer ${key}` } : {},
        });
        await response.arrayBuffer();
        return { status: response.status, headers: response.headers };
      }),
    );
  }

  it('300 concurrent keyed requests racing for the last 7 units: exactly 7 succeed, on every process', async () => {
    const { key } = await accountWithKey('race@example.test');
    await store.withDb(async (db) => {
      const { billing_day } = await db.selectFrom('accounts').select('billing_day').where('email', '=', 'race@example.test').executeTakeFirstOrThrow();
      await db
        .updateTable('accounts')
        .set({ quota_used: LIMIT - 7, quota_period: billingPeriod(billing_day, new Date()).start })
        .where('email', '=', 'race@example.test')
        .execute();
    });
    const answers = await burst(300, '/latest?symbols=USD', key);
    const ok = answers.filter((a) => a.status === 200);
    expect(ok).toHaveLength(7);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(293);
    expect(ok.map((a) => Number(a.headers.get('x-ratelimit-remaining-monthly'))).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    const used = await store.withDb((db) =>
      db.selectFrom('accounts').select('quota_used').where('email', '=', 'race@example.test').executeTakeFirstOrThrow(),
    );
    expect(used.quota_used).toBe(LIMIT);
  });

  it('30 concurrent keyless conversions from one client: exactly 3 succeed across the processes', async () => {
    const answers = await burst(30, '/convert?from=USD&to=EUR&amount=10');
    expect(answers.filter((a) => a.status === 200)).toHaveLength(3);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(27);
  });

  it('a key revoked through one process is refused by every process as soon as the revoke returns', async () => {
    const { key, prefix } = await accountWithKey('revoke@example.test');
    // Every process has looked the key up (and cached it) before the revocation.
    expect((await burst(PROCESSES, '/latest?symbols=USD', key)).map((a) => a.status)).toEqual([200, 200, 200]);
    await services[0]!.operator('mutation($p: Text!) { revokeApiKey(prefix: $p) { id } }', { p: prefix });
    expect((await burst(PROCESSES, '/latest?symbols=USD', key)).map((a) => a.status)).toEqual([401, 401, 401]);
  });
});
