// The schema as the migrations leave it, in one file a reader can open: src/db/schema.sql.
// `npm run schema:dump` migrates a fresh in-memory PGlite and rewrites the file; a test compares it
// with a freshly migrated database (PGlite, and Postgres when DATABASE_URL is set). Read from the
// catalogs rather than by pg_dump, which PGlite does not have, so both stores give the same text.
import { writeFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, sql } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import type { Database } from './database.js';
import { migrateToLatest } from './migrate.js';

export const SCHEMA_FILE = new URL('./schema.sql', import.meta.url);

const HEADER = '-- The schema the migrations make (src/db/migrations). Written by `npm run schema:dump`: do not edit.\n';

/** The tables (columns, constraints, indexes) and functions of the public schema, as SQL text. */
export async function dumpSchema(db: Kysely<Database>): Promise<string> {
  const { rows: columns } = await sql<{ table: string; line: string }>`
    select c.relname as table,
           a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
             || case when a.attidentity = 'a' then ' generated always as identity' else '' end
             || coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), '')
             || case when a.attnotnull then ' not null' else '' end as line
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
    left join pg_attrdef d on d.adrelid = c.oid and d.adnum = a.attnum
    where n.nspname = 'public' and c.relkind = 'r' and c.relname not like 'kysely\_%'
    order by c.relname, a.attnum`.execute(db);
  const { rows: constraints } = await sql<{ table: string; line: string }>`
    select c.relname as table, 'constraint ' || k.conname || ' ' || pg_get_constraintdef(k.oid) as line
    from pg_constraint k
    join pg_class c on c.oid = k.conrelid
    join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and k.contype in ('p', 'u', 'f', 'c') and c.relname not like 'kysely\_%'
    order by c.relname, position(k.contype in 'pufc'), k.conname`.execute(db);
  const { rows: indexes } = await sql<{ table: string; definition: string }>`
    select c.relname as table, pg_get_indexdef(i.indexrelid) as definition
    from pg_index i
    join pg_class c on c.oid = i.indrelid
    join pg_class ic on ic.oid = i.indexrelid
    join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and c.relname not like 'kysely\_%'
      and not exists (select from pg_constraint k where k.conindid = i.indexrelid)
    order by c.relname, ic.relname`.execute(db);
  const { rows: functions } = await sql<{ definition: string }>`
    select pg_get_functiondef(p.oid) as definition
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = 'public'
    order by p.proname, pg_get_function_identity_arguments(p.oid)`.execute(db);

  const tables = [...new Set(columns.map((row) => row.table))];
  const parts = tables.map((table) => {
    const lines = [...columns, ...constraints].filter((row) => row.table === table).map((row) => `  ${row.line}`);
    const own = indexes.filter((row) => row.table === table).map((row) => `${row.definition};\n`);
    return `create table ${table} (\n${lines.join(',\n')}\n);\n${own.join('')}`;
  });
  for (const { definition } of functions) parts.push(`${definition.trimEnd()};\n`);
  return `${HEADER}\n${parts.join('\n')}`;
}

/** A new in-memory PGlite with every migration run, dumped. */
async function freshDump(): Promise<string> {
  const db = new Kysely<Database>({ dialect: new PGliteDialect(await PGlite.create()) });
  try {
    await migrateToLatest(db);
    return await dumpSchema(db);
  } finally {
    await db.destroy();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(SCHEMA_FILE, await freshDump());
  console.log(`wrote ${SCHEMA_FILE.pathname}`);
}
