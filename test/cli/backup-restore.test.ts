// A backup taken while the service answers keyed requests, restored into a fresh data directory
// (`cli backup` / `cli restore`, the embedded database) or a fresh database (pg_dump / pg_restore,
// a Postgres server): every table holds what the source held at the backup's instant. The tables
// the load does not write are equal to the source's; each account's count lies between the
// successes answered before the backup began and those asked for before it ended, and the usage
// counts are never more than the source's.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sql, type Kysely } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connect.js';
import type { Database } from '../../src/db/database.js';
import {
  accountWithKeyVia,
  createCliStore,
  importFixtureVia,
  oneJson,
  runCli,
  startService,
  succeeded,
  type CliStore,
  type RunningService,
} from '../support/cli.js';
import { createEmptyDatabaseUrl } from '../support/db.js';

const execFileAsync = promisify(execFile);
const ACCOUNTS = 3;
/** what keyed requests write: counts checked against the load, not compared whole */
const COUNTED = new Set([
  'accounts',
  'usage_daily',
  'usage_totals_daily',
  'usage_account_daily',
  'usage_account_monthly',
  'usage_account_yearly',
  'conversions_daily',
  'conversions_monthly',
  'quota_grant_marks',
]);

type Tables = Record<string, unknown[]>;

/** Every table of the database, each as its rows in a fixed order. */
async function tablesOf(db: Kysely<Database>): Promise<Tables> {
  const { rows } = await sql<{
    name: string;
  }>`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`.execute(db);
  const tables: Tables = {};
  for (const { name } of rows) {
    const content = await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(db);
    tables[name] = content.rows.map((row) => JSON.stringify(row)).sort();
  }
  return tables;
}

/** The rows of `accounts` without their counts. */
const accountsWithoutCounts = (tables: Tables) =>
  (tables.accounts as string[]).map((row) => {
    const account = JSON.parse(row) as Record<string, unknown>;
    delete account.quota_used;
    delete account.free_used;
    return account;
  });

interface Answered {
  account: number;
  startedAt: number;
  endedAt: number;
  status: number;
}

/** Keyed requests of every account one after another, until `stop()`; each answer recorded. */
function keyedLoad(service: RunningService, keys: string[]) {
  const answers: Answered[] = [];
  let stopped = false;
  const paths = [
    '/latest?symbols=USD',
    '/2026-05-11',
    '/convert?from=USD&to=EUR&amount=10',
    '/timeseries?start_date=2026-04-01&end_date=2026-05-11&symbols=JPY',
  ];
  const loops = keys.map(async (key, account) => {
    for (let i = 0; !stopped; i++) {
      const startedAt = Date.now();
      const response = await fetch(`${service.publicUrl}${paths[i % paths.length]}`, { headers: { Authorization: `Bearer ${key}` } });
      await response.arrayBuffer();
      answers.push({ account, startedAt, endedAt: Date.now(), status: response.status });
    }
  });
  return {
    answers,
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

/** Restored against the source: equal, save the counts the load wrote after the backup's instant. */
function expectRestored(restored: Tables, source: Tables, load: Answered[], window: { from: number; to: number }): void {
  expect(Object.keys(restored)).toEqual(Object.keys(source));
  for (const name of Object.keys(source)) if (!COUNTED.has(name)) expect(restored[name], name).toEqual(source[name]);
  expect(accountsWithoutCounts(restored)).toEqual(accountsWithoutCounts(source));
  const used = (tables: Tables) => (tables.accounts as string[]).map((row) => JSON.parse(row) as { email: string; quota_used: number });
  const restoredUsed = Object.fromEntries(used(restored).map((a) => [a.email, a.quota_used]));
  for (let account = 0; account < ACCOUNTS; account++) {
    const ok = load.filter((a) => a.account === account && a.status === 200);
    const before = ok.filter((a) => a.endedAt < window.from).length;
    const asked = ok.filter((a) => a.startedAt <= window.to).length;
    const count = restoredUsed[`backup-${account}@example.test`]!;
    expect(count).toBeGreaterThanOrEqual(before);
    expect(count).toBeLessThanOrEqual(asked);
  }
  expect(load.every((a) => a.status === 200)).toBe(true);
  const sum = (tables: Tables, name: string) => (tables[name] as string[]).reduce((n, row) => n + (JSON.parse(row) as { requests: number }).requests, 0);
  for (const name of ['usage_daily', 'usage_account_monthly']) expect(sum(restored, name)).toBeLessThanOrEqual(sum(source, name));
  // the marks of the grants committed by the backup's instant: some of the source's
  expect(source.quota_grant_marks).toEqual(expect.arrayContaining(restored.quota_grant_marks!));
}

/** A service on `store` with the fixture, accounts with keys and a webhook subscription; the keys. */
async function seeded(store: CliStore): Promise<{ service: RunningService; keys: string[] }> {
  const service = await startService({ ...store.env, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
  await importFixtureVia(service, 'f11.1-data.csv');
  const keys: string[] = [];
  for (let account = 0; account < ACCOUNTS; account++) keys.push((await accountWithKeyVia(service, `backup-${account}@example.test`, 'professional')).key);
  const created = await fetch(`${service.publicUrl}/api/webhook-subscriptions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${keys[0]}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ url: 'https://127.0.0.1:9/hook', currencies: ['USD', 'EUR'] }),
  });
  expect(created.status).toBe(200);
  return { service, keys };
}

const dirs: string[] = [];
const stores: CliStore[] = [];
const services: RunningService[] = [];
afterAll(async () => {
  await Promise.all(services.map((s) => s.stop('SIGKILL')));
  await Promise.all(stores.map((s) => s.close()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(Boolean(process.env.DATABASE_URL))('cli backup and restore (the embedded database)', () => {
  it('a backup under load restores into a fresh data directory as the source was at its instant', async () => {
    const store = await createCliStore({ embedded: true });
    stores.push(store);
    const { service, keys } = await seeded(store);
    services.push(service);
    const work = mkdtempSync(join(tmpdir(), 'aud-rates-backup-'));
    dirs.push(work);
    const file = join(work, 'rates.backup');

    const load = keyedLoad(service, keys);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const from = Date.now();
    const made = succeeded(await runCli(['backup', file], store.env));
    const to = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await load.stop();
    expect(made).toEqual({ backup: file, bytes: statSync(file).size });
    expect(statSync(file).mode & 0o777).toBe(0o600);

    // A restore refuses while the service runs, and into a directory that holds a database.
    expect(oneJson(await runCli(['restore', file], store.env)).error).toMatch(/runs on DATA_DIR .*stop it before restoring/);
    expect(await service.stop()).toEqual({ code: 0, signal: null });
    expect(oneJson(await runCli(['restore', file], store.env)).error).toMatch(/pgdata exists: move it aside/);

    const fresh = join(work, 'restored');
    // the backup holds no webhook-key: the operator is told to put it back
    expect(succeeded(await runCli(['restore', file], { DATA_DIR: fresh }))).toEqual({
      restored: file,
      dataDir: fresh,
      reminder: `Put the backed-up data directory's webhook-key file back as ${join(fresh, 'webhook-key')} (or set WEBHOOK_KEY to it) before starting the service: the backup does not hold it, and without it the stored webhook signing secrets cannot be opened`,
    });
    // with WEBHOOK_KEY set, to keep it
    const keyed = succeeded(await runCli(['restore', file], { DATA_DIR: join(work, 'keyed'), WEBHOOK_KEY: Buffer.alloc(32, 3).toString('base64url') }));
    expect(keyed.reminder).toMatch(/^Keep WEBHOOK_KEY set to the key the backed-up service used before starting the service: the backup does not hold it/);
    const source = await store.withDb(tablesOf);
    const { db } = await openDatabase({ kind: 'pglite', dataDir: join(fresh, 'pgdata') });
    const restored = await tablesOf(db).finally(() => db.destroy());
    expectRestored(restored, source, load.answers, { from, to });
    expect(load.answers.length).toBeGreaterThan(20);
  }, 180_000);

  it('refuses a file that is not a backup, and leaves no database behind', async () => {
    const work = mkdtempSync(join(tmpdir(), 'aud-rates-backup-'));
    dirs.push(work);
    const result = await runCli(['restore', join(import.meta.dirname, 'backup-restore.test.ts')], { DATA_DIR: join(work, 'data') });
    expect(result.code).toBe(1);
    expect(oneJson(result).error).toMatch(/is not a backup of the embedded database/);
    expect(() => statSync(join(work, 'data', 'pgdata'))).toThrow();
    const [noFile, twoFiles, missing] = await Promise.all([
      runCli(['restore'], { DATA_DIR: join(work, 'data') }),
      runCli(['restore', 'a', 'b'], { DATA_DIR: join(work, 'data') }),
      runCli(['restore', join(work, 'missing.backup')], { DATA_DIR: join(work, 'data') }),
    ]);
    expect(oneJson(noFile).error).toBe('usage: restore <file>');
    expect(oneJson(twoFiles).error).toBe('usage: restore <file>');
    expect(oneJson(missing).error).toMatch(/^Cannot read .*missing\.backup/);
    expect([noFile.code, twoFiles.code, missing.code]).toEqual([1, 1, 1]);
  }, 60_000);
});

describe.skipIf(!process.env.DATABASE_URL)('pg_dump and pg_restore (a Postgres server)', () => {
  it('a dump under load restores into a fresh database as the source was at its instant', async () => {
    const store = await createCliStore();
    stores.push(store);
    const { service, keys } = await seeded(store);
    services.push(service);
    const work = mkdtempSync(join(tmpdir(), 'aud-rates-backup-'));
    dirs.push(work);
    const file = join(work, 'rates.dump');
    // The CLI's backup is the embedded database's: on a server it says to use pg_dump.
    expect(oneJson(await runCli(['backup', file], store.env)).error).toMatch(/pg_dump/);

    const load = keyedLoad(service, keys);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const from = Date.now();
    await execFileAsync('pg_dump', ['--format=custom', `--file=${file}`, store.env.DATABASE_URL!]);
    const to = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await load.stop();
    expect(await service.stop()).toEqual({ code: 0, signal: null });

    const fresh = (await createEmptyDatabaseUrl())!;
    try {
      await execFileAsync('pg_restore', ['--no-owner', '--exit-on-error', `--dbname=${fresh.url}`, file]);
      const source = await store.withDb(tablesOf);
      const { db } = await openDatabase({ kind: 'postgres', url: fresh.url });
      const restored = await tablesOf(db).finally(() => db.destroy());
      expectRestored(restored, source, load.answers, { from, to });
    } finally {
      await fresh.drop();
    }
  }, 90_000);
});
