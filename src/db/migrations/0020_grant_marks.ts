// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

/**
 * A grant that commits apart from its statement (on a Postgres server) writes a mark of its own in
 * its transaction, so that whether it committed can be read later from the mark itself. Its
 * transaction id alone cannot say: a server that restarts after a crash may hand an id that never
 * reached its log to a new transaction, and a grant that never committed would then look
 * committed. Marks are kept an hour (src/rest/unanswered-grants.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('quota_grant_marks')
    .addColumn('mark', 'uuid', (c) => c.primaryKey())
    .addColumn('granted_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('quota_grant_marks').execute();
}
