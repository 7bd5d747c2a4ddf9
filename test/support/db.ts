// A database of the test file's own, copied from the run's migrated template.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, sql } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { openDatabase, type OpenOptions } from '../../src/db/connect.js';
import { adminQuery } from './postgres.js';

function databaseUrl(serverUrl: string, name: string): string {
  const target = new URL(serverUrl);
  target.pathname = `/${name}`;
  return target.toString();
}

function freshName(base: string): string {
  return `${base}_t${randomBytes(6).toString('hex')}`;
}

/**
 * A new database on the Postgres server named by DATABASE_URL, copied from the run's migrated
 * template, for child processes (the CLI, the service) to open by URL; null when the suite runs on
 * PGlite.
 */
export async function createTestDatabaseUrl(): Promise<{ url: string; drop(): Promise<void> } | null> {
  const url = process.env.DATABASE_URL;
  const template = inject('postgresTemplate');
  if (!url || !template) return null;
  const name = freshName(template.replace(/_template$/, ''));
  await adminQuery(url, `CREATE DATABASE "${name}" TEMPLATE "${template}"`);
  return {
    url: databaseUrl(url, name),
    drop: () => adminQuery(url, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}

/** The run's migrated PGlite template (a data-directory tarball), or null on Postgres. */
export function pgliteTemplateFile(): string | null {
  return inject('pgliteTemplate') || null;
}

/**
 * A Blob that PGlite's loadDataDir reads whole through arrayBuffer(): this one hands its bytes over
 * in one copy, where Node 20's own Blob reads them back in 64 KiB steps.
 */
class BytesBlob extends Blob {
  constructor(private readonly content: Uint8Array<ArrayBuffer>) {
    super([content]);
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    return Promise.resolve(this.content.slice().buffer);
  }
}

let templateBlob: { file: string; blob: Blob } | undefined;

/** The run's PGlite template as a Blob for loadDataDir, read once per worker. */
export function pgliteTemplate(): Blob {
  const file = inject('pgliteTemplate');
  if (templateBlob?.file !== file) templateBlob = { file, blob: new BytesBlob(new Uint8Array(readFileSync(file))) };
  return templateBlob.blob;
}

export async function openTestDatabase(options: OpenOptions = {}) {
  const created = await createTestDatabaseUrl();
  if (created) {
    const { db, pool, snapshot } = await openDatabase({ kind: 'postgres', url: created.url }, options);
    return {
      db,
      pool,
      snapshot,
      url: created.url,
      async close() {
        await db.destroy();
        await created.drop();
      },
    };
  }
  const { db, pool, snapshot } = await openDatabase({ kind: 'pglite', loadDataDir: pgliteTemplate() }, options);
  return { db, pool, snapshot, url: null, close: () => db.destroy() };
}

/** A new, empty database (not migrated) on the Postgres server named by DATABASE_URL, for child processes; null on PGlite. */
export async function createEmptyDatabaseUrl(): Promise<{ url: string; drop(): Promise<void> } | null> {
  const url = process.env.DATABASE_URL;
  const template = inject('postgresTemplate');
  if (!url || !template) return null;
  const name = freshName(template.replace(/_template$/, ''));
  await adminQuery(url, `CREATE DATABASE "${name}"`);
  return {
    url: databaseUrl(url, name),
    drop: () => adminQuery(url, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}

/**
 * An empty database of the test's own, not migrated (not copied from the template): a new database
 * on the Postgres server, or a new in-memory PGlite.
 */
export async function openEmptyDatabase(): Promise<{ db: Kysely<any>; close(): Promise<void> }> {
  const url = process.env.DATABASE_URL;
  const template = inject('postgresTemplate');
  if (url && template) {
    const name = freshName(template.replace(/_template$/, ''));
    await adminQuery(url, `CREATE DATABASE "${name}"`);
    const { db } = await openDatabase({ kind: 'postgres', url: databaseUrl(url, name) });
    return {
      db,
      async close() {
        await db.destroy();
        await adminQuery(url, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      },
    };
  }
  const db = new Kysely<any>({ dialect: new PGliteDialect(await PGlite.create()) });
  return { db, close: () => db.destroy() };
}

/**
 * An empty database for this test file (openEmptyDatabase): opened before its tests, closed after
 * them.
 */
export function emptyDatabaseForFile() {
  let database: Awaited<ReturnType<typeof openEmptyDatabase>> | undefined;
  beforeAll(async () => {
    database = await openEmptyDatabase();
  }, 60_000);
  afterAll(() => database?.close());
  return {
    get db(): Kysely<any> {
      if (!database) throw new Error('the database opens before the tests (beforeAll)');
      return database.db;
    },
  };
}

/**
 * Resolves once one session of the database waits for a lock: a statement running meanwhile has
 * reached a row the test holds. Within moments, or seconds on a busy machine (an app's first
 * internal operation loads that endpoint's modules). Postgres only.
 */
export async function untilOneWaitsForALock(db: Kysely<any>): Promise<void> {
  await expect
    .poll(
      async () => {
        const { rows } = await sql<{ n: number }>`
          select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(db);
        return rows[0]!.n;
      },
      { timeout: 20_000 },
    )
    .toBe(1);
}
