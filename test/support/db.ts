// A database of the test file's own, copied from the run's migrated template.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { inject } from 'vitest';
import { openDatabase } from '../../src/db/connect.js';
import { adminQuery } from './postgres.js';

export async function openTestDatabase() {
  const url = process.env.DATABASE_URL;
  const template = inject('postgresTemplate');
  if (url && template) {
    const name = `${template.replace(/_template$/, '')}_t${randomBytes(6).toString('hex')}`;
    await adminQuery(url, `CREATE DATABASE "${name}" TEMPLATE "${template}"`);
    const target = new URL(url);
    target.pathname = `/${name}`;
    const { db } = await openDatabase({ kind: 'postgres', url: target.toString() });
    return {
      db,
      url: target.toString(),
      async close() {
        await db.destroy();
        await adminQuery(url, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      },
    };
  }
  const dump = new Blob([readFileSync(inject('pgliteTemplate'))]);
  const { db } = await openDatabase({ kind: 'pglite', loadDataDir: dump });
  return { db, url: null, close: () => db.destroy() };
}
