// Migrations on a fresh database of the test's own (not the run's template): up creates the
// project's tables and exactly the schema src/db/schema.sql shows, down all the way leaves none of
// them, and up again works.
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrateDown, migrateToLatest, migrator } from '../../src/db/migrate.js';
import { dumpSchema, SCHEMA_FILE } from '../../src/db/schema-dump.js';
import { emptyDatabaseForFile } from '../support/db.js';

// The first migration's tables; later migrations add more, which the tests find by looking.
const FIRST_TABLES = ['accounts', 'api_keys', 'publications', 'rate_corrections', 'rates'];
// Kysely's own bookkeeping, which stays so that it knows nothing is applied.
const MIGRATOR_TABLES = ['kysely_migration', 'kysely_migration_lock'];

const database = emptyDatabaseForFile();

async function tables(): Promise<string[]> {
  const result = await sql<{ table_name: string }>`
    select table_name from information_schema.tables
    where table_schema = 'public' order by table_name`.execute(database.db);
  return result.rows.map((r) => r.table_name);
}

async function applied(): Promise<string[]> {
  return (await migrator(database.db).getMigrations()).filter((m) => m.executedAt !== undefined).map((m) => m.name);
}

/** Undoes every applied migration, newest first. */
async function migrateAllDown(): Promise<void> {
  for (let n = (await applied()).length; n > 0; n--) await migrateDown(database.db);
}

describe('migrations', () => {
  it('start from a database without the project tables', async () => {
    expect(await tables()).toEqual([]);
  });

  let projectTables: string[] = [];

  it('up applies every migration and creates the project tables', async () => {
    await migrateToLatest(database.db);
    expect(await applied()).toEqual((await migrator(database.db).getMigrations()).map((m) => m.name));
    const all = await tables();
    expect(all).toEqual(expect.arrayContaining([...FIRST_TABLES, ...MIGRATOR_TABLES]));
    projectTables = all.filter((t) => !MIGRATOR_TABLES.includes(t));
    // migrating again is a no-op
    await migrateToLatest(database.db);
    expect(await tables()).toEqual(all);
  });

  it('up leaves the schema src/db/schema.sql shows (`npm run schema:dump` writes it)', async () => {
    expect(await dumpSchema(database.db)).toBe(readFileSync(SCHEMA_FILE, 'utf8'));
  });

  it('down leaves no project tables (nor their indexes or sequences)', async () => {
    await migrateAllDown();
    expect(await applied()).toEqual([]);
    const left = await tables();
    for (const table of projectTables) expect(left).not.toContain(table);
    expect(left.filter((t) => !MIGRATOR_TABLES.includes(t))).toEqual([]);
    const relations = await sql<{ relname: string }>`
      select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relname not like 'kysely_migration%'`.execute(database.db);
    expect(relations.rows).toEqual([]);
  });

  it('up again works and the tables take data', async () => {
    await migrateToLatest(database.db);
    expect(await tables()).toEqual([...projectTables, ...MIGRATOR_TABLES].sort());
    expect(await dumpSchema(database.db)).toBe(readFileSync(SCHEMA_FILE, 'utf8'));
    const { id } = await database.db
      .insertInto('publications')
      .values({ source: 'test', format: 'csv', first_date: '2024-01-02', last_date: '2024-01-02', days: 1, inserted: 1, updated: 0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    await database.db.insertInto('rates').values({ date: '2024-01-02', code: 'USD', value: '0.6781', publication_id: id }).execute();
    const account = await database.db.insertInto('accounts').values({ email: 'm@example.test', plan: 'free' }).returning('id').executeTakeFirstOrThrow();
    await database.db.insertInto('api_keys').values({ account_id: account.id, prefix: 'bondi', key_hash: 'h', last_four: 'abcd' }).execute();
    const row = await database.db
      .selectFrom('rates')
      .select([sql<string>`value::text`.as('value')])
      .executeTakeFirstOrThrow();
    expect(row.value).toBe('0.6781');
  });
});
