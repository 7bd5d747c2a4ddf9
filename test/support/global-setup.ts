// Migrates one template database per run, so each test file starts from a copy instead of paying
// for a fresh PGlite initdb (about 3 s) or running the migrations again.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import type { TestProject } from 'vitest/node';
import type { Database } from '../../src/db/database.js';
import { openDatabase } from '../../src/db/connect.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { adminQuery, templateName, testDatabaseCopies } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
    postgresTemplate: string;
  }
}

export default async function setup(project: TestProject) {
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
  const pglite = await PGlite.create();
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
  await migrateToLatest(db);
  const file = join(dir, 'template.tar');
  writeFileSync(file, Buffer.from(await (await pglite.dumpDataDir('none')).arrayBuffer()));
  await db.destroy();
  project.provide('pgliteTemplate', file);
  project.provide('postgresTemplate', '');
  return () => rmSync(dir, { recursive: true, force: true });
}
