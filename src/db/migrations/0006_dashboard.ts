// Frozen: never edit a migration that has shipped; add a new one.
import type { Kysely } from 'kysely';

/**
 * The dashboard's sign-in (D31): e-mailed single-use links and browser sessions, both kept only as
 * a hash of their token. A link's row outlives its use: the rows of the last hour are what the
 * per-address and per-client limits count.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sign_in_links')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('client', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('used_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('sign_in_links_email').on('sign_in_links').columns(['email', 'created_at']).execute();
  await db.schema.createIndex('sign_in_links_client').on('sign_in_links').columns(['client', 'created_at']).execute();
  await db.schema
    .createTable('dashboard_sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'uuid', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_seen_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('dashboard_sessions_account').on('dashboard_sessions').column('account_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('dashboard_sessions').execute();
  await db.schema.dropTable('sign_in_links').execute();
}
