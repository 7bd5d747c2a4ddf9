// Migrates one template database per run, so each test file starts from a copy instead of paying
// for a fresh PGlite initdb (about 3 s) or running the migrations again. Bundles the service and the
// CLI once, as `npm start` and `npm run cli` run them: the tests' child processes start from the
// bundle, which is what ships and starts far faster than the sources through tsx.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import type { TestProject } from 'vitest/node';
import { ENTRIES, bundleEntries } from '../../scripts/build.js';
import type { Database } from '../../src/db/database.js';
import { openDatabase } from '../../src/db/connect.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { adminQuery, templateName, testDatabaseCopies } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
    postgresTemplate: string;
    /** the directory holding this run's `main.js` and `cli.js` */
    bundleDir: string;
  }
}

export default async function setup(project: TestProject) {
  const [removeBundle, removeTemplate] = await Promise.all([bundleForRun(project), migrateTemplate(project)]);
  return async () => {
    await removeTemplate();
    removeBundle();
  };
}

/** Inside the project, as dist/ is: a bundle finds the packages it leaves out in node_modules. */
async function bundleForRun(project: TestProject) {
  const ROOT = fileURLToPath(new URL('../../', import.meta.url));
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  const dir = mkdtempSync(join(ROOT, 'dist', 'test-run-'));
  await bundleEntries(ENTRIES, dir);
  project.provide('bundleDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}

async function migrateTemplate(project: TestProject): Promise<() => unknown> {
  const url = process.env.DATABASE_URL;
  if (url) {
    const template = templateName(url);
    await adminQuery(url, `DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`);
    await adminQuery(url, `CREATE DATABASE "${template}"`);
    const target = new URL(url);
    target.pathname = `/${template}`;
    const { db } = await openDatabase({ kind: 'postgres', url: target.toString() });
    await migrateToLatest(db);
    await db.destroy();
    project.provide('postgresTemplate', template);
    project.provide('pgliteTemplate', '');
    return async () => {
      await adminQuery(url, `DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`);
      // A copy whose test ended without dropping it (a timeout, a failed close) goes with the run.
      for (const name of await testDatabaseCopies(url, template)) await adminQuery(url, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'aud-rates-test-'));
  // Every test database and test data directory is opened from this copy, so it is made cheap to
  // open: WAL segments of 1 MB (not 16) to unpack, a checkpoint so that nothing is replayed, and
  // 16 MB of shared buffers (not 128) to set up, plenty for a test's few megabytes. None of it
  // changes what a statement does.
  const pglite = await PGlite.create({ initDbStartParams: ['--wal-segsize=1'] });
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
  await migrateToLatest(db);
  await pglite.exec("ALTER SYSTEM SET shared_buffers = '16MB'");
  await pglite.exec('CHECKPOINT');
  const file = join(dir, 'template.tar');
  writeFileSync(file, Buffer.from(await (await pglite.dumpDataDir('none')).arrayBuffer()));
  await db.destroy();
  project.provide('pgliteTemplate', file);
  project.provide('postgresTemplate', '');
  return () => rmSync(dir, { recursive: true, force: true });
}
