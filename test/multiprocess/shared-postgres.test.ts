// Several service processes on one Postgres database (issue: exact under concurrency, across
// processes): the monthly quota, the keyless hourly limit and revocations hold for all of them, and
// every process serves the rates another process has just stored (each holds them in memory).
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { LISTENER_APPLICATION_NAME } from '../../src/db/change-feed.js';
import { billingPeriod } from '../../src/domain/billing.js';
import { importFixtureVia, servicesOnOneStore } from '../support/cli.js';
import { graphql } from '../../src/graphql.js';

const PROCESSES = 3;
const LIMIT = 50_000; // Professional

describe.skipIf(!process.env.DATABASE_URL)('three service processes sharing one Postgres', () => {
  const { store, services } = servicesOnOneStore(PROCESSES, 'f11.1-data.csv');

  async function accountWithKey(email: string): Promise<{ key: string; prefix: string }> {
    await services[0]!.operator(graphql('mutation($e: EmailAddress!) { createAccount(email: $e, plan: professional) { id } }'), { e: email });
    const { createApiKey } = await services[1]!.operator(graphql('mutation($e: EmailAddress!) { createApiKey(email: $e) { key apiKey { prefix } } }'), {
      e: email,
    });
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
    const used = await store.withDb((db) => db.selectFrom('accounts').select('quota_used').where('email', '=', 'race@example.test').executeTakeFirstOrThrow());
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
    await services[0]!.operator(graphql('mutation($p: Text!) { revokeApiKey(prefix: $p) { id } }'), { p: prefix });
    expect((await burst(PROCESSES, '/latest?symbols=USD', key)).map((a) => a.status)).toEqual([401, 401, 401]);
  });

  /** The same keyed GET on every process: status and parsed body of each. */
  async function onEvery(path: string, key: string): Promise<{ status: number; body: any }[]> {
    return Promise.all(
      services.map(async (service) => {
        const response = await fetch(`${service.publicUrl}${path}`, { headers: { Authorization: `Bearer ${key}` } });
        return { status: response.status, body: await response.json() };
      }),
    );
  }

  it("an import through one process changes every process's rate answers as soon as it returns", async () => {
    const { key } = await accountWithKey('import-seen@example.test');
    // Every process has read and served its history before the import.
    expect((await onEvery('/latest', key)).map((a) => a.body.date)).toEqual(['2026-05-11', '2026-05-11', '2026-05-11']);
    expect((await onEvery('/2026-05-12', key)).map((a) => a.status)).toEqual([404, 404, 404]);
    await importFixtureVia(services[0]!, 'rss-cb-exchange-rates-2026-05-12.xml');
    expect((await onEvery('/latest', key)).map((a) => a.body.date)).toEqual(['2026-05-12', '2026-05-12', '2026-05-12']);
    expect((await onEvery('/2026-05-12', key)).map((a) => a.status)).toEqual([200, 200, 200]);
    const converted = await onEvery('/convert?from=USD&to=EUR&amount=100&date=2026-05-17', key);
    expect(converted.map((a) => a.body.date)).toEqual(['2026-05-12', '2026-05-12', '2026-05-12']);
  });

  it('a process whose notification connection was cut reads the rates again when it reconnects', async () => {
    const { key } = await accountWithKey('reconnect@example.test');
    const before = (await onEvery('/2026-05-11', key))[1]!.body.rates.USD as number;
    // Cut every listening connection, then store a correction while nobody listens.
    await store.withDb((db) =>
      sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = ${LISTENER_APPLICATION_NAME}`.execute(
        db,
      ),
    );
    const corrected = (before + 0.0001).toFixed(4);
    const result = await services[0]!.operator(graphql('mutation($input: ImportRatesInput!) { importRates(input: $input) { updated } }'), {
      input: { source: 'correction', format: 'csv', days: [{ date: '2026-05-11', rates: [{ code: 'USD', value: corrected }] }] },
    });
    expect(result.importRates.updated).toBe(1);
    // Each process reconnects within a second or two and then serves the corrected value.
    const deadline = Date.now() + 10_000;
    let seen: number[] = [];
    while (Date.now() < deadline) {
      const answers = await onEvery('/2026-05-11', key);
      expect(answers.filter((a) => a.status !== 200)).toEqual([]); // a refusal shows its status and envelope
      seen = answers.map((a) => a.body.rates.USD);
      if (seen.every((usd) => usd === Number(corrected))) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(seen).toEqual([Number(corrected), Number(corrected), Number(corrected)]);
  });
});
