// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

/** Which history workbooks (RBA_HISTORY_URLS) have been stored, so each is fetched once. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('history_imports')
    .addColumn('source', 'text', (c) => c.primaryKey())
    .addColumn('days', 'integer', (c) => c.notNull())
    .addColumn('first_date', 'date', (c) => c.notNull())
    .addColumn('last_date', 'date', (c) => c.notNull())
    .addColumn('imported_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('history_imports').execute();
}
