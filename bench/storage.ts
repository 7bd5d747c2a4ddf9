// A fresh, migrated database for one bench run: embedded PGlite in a temporary directory, or, with
// BENCH_DATABASE_URL, a new `bench_<random>` database on that Postgres server, dropped afterwards.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import pg from 'pg';
import type { Database } from '../src/db/database.js';
import { openDatabase, targetFromConfig } from '../src/db/connect.js';
import { parseConfig } from '../src/config.js';
import { migrateToLatest } from '../src/db/migrate.js';

export interface BenchStorage {
  db: Kysely<Database>;
  /** the Postgres database's URL, for the service's config (its choices for a database server); undefined for PGlite */
  databaseUrl?: string;
  /** what the report prints, e.g. "pglite (embedded) in /tmp/…" */
  label: string;
  destroy(): Promise<void>;
}

async function adminQuery(serverUrl: string, sql: string, values: unknown[] = []): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return (await client.query<Record<string, unknown>>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

/**
 * Drops the database once its sessions are gone. The pool's end() resolves before its connections
 * have closed on the server, and a forced drop would then kill them under the service's pool, which
 * has no 'error' listener and would crash the process: so wait first, and force only as a last resort.
 */
async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  for (let waited = 0; waited < 5_000; waited += 50) {
    const [row] = (await adminQuery(serverUrl, 'select count(*)::int as n from pg_stat_activity where datname = $1', [name])) as { n: number }[];
    if (row?.n === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}

async function openPostgres(serverUrl: string): Promise<BenchStorage> {
  const name = `bench_${randomBytes(6).toString('hex')}`;
  await adminQuery(serverUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  try {
    // opened as the service opens it: the configured pool and timeouts
    const { db } = await openDatabase(targetFromConfig(parseConfig({ DATABASE_URL: url.toString() })));
    await migrateToLatest(db);
    return {
      db,
      databaseUrl: url.toString(),
      label: `postgres database ${name} on ${url.host} (pg pool of 10)`,
      async destroy() {
        await db.destroy();
        await dropDatabase(serverUrl, name);
      },
    };
  } catch (error) {
    await dropDatabase(serverUrl, name);
    throw error;
  }
}

async function openPglite(): Promise<BenchStorage> {
  const dir = mkdtempSync(join(tmpdir(), 'aud-rates-bench-'));
  try {
    const { db } = await openDatabase({ kind: 'pglite', dataDir: join(dir, 'pgdata') });
    await migrateToLatest(db);
    return {
      db,
      label: `pglite (embedded, in-process) in ${dir}`,
      async destroy() {
        try {
          await db.destroy();
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

export function openBenchStorage(serverUrl = process.env.BENCH_DATABASE_URL): Promise<BenchStorage> {
  return serverUrl ? openPostgres(serverUrl) : openPglite();
}
