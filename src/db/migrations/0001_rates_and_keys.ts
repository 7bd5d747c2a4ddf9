// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('publications')
    .addColumn('id', 'integer', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull().check(sql`format in ('csv', 'xls', 'rss')`))
    .addColumn('rba_publication_date', 'date')
    .addColumn('first_date', 'date', (c) => c.notNull())
    .addColumn('last_date', 'date', (c) => c.notNull())
    .addColumn('days', 'integer', (c) => c.notNull())
    .addColumn('inserted', 'integer', (c) => c.notNull())
    .addColumn('updated', 'integer', (c) => c.notNull())
    .addColumn('stored_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('rates')
    .addColumn('date', 'date', (c) => c.notNull())
    .addColumn('code', 'text', (c) => c.notNull().check(sql`code ~ '^[A-Z]{3}$'`))
    // Plain numeric keeps the scale the RBA published ('61.40') and is exact.
    .addColumn('value', 'numeric', (c) => c.notNull().check(sql`value >= 0`))
    .addColumn('publication_id', 'integer', (c) => c.notNull().references('publications.id'))
    .addPrimaryKeyConstraint('rates_pkey', ['date', 'code'])
    .execute();
  // "Newest day on which code X has a rate" (D10 in docs/decisions.md) and dated conversions (D9)
  // walk this index.
  await db.schema.createIndex('rates_code_date_idx').on('rates').columns(['code', 'date']).execute();

  await db.schema
    .createTable('rate_corrections')
    .addColumn('id', 'integer', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('date', 'date', (c) => c.notNull())
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('previous_value', 'numeric', (c) => c.notNull())
    .addColumn('value', 'numeric', (c) => c.notNull())
    .addColumn('publication_id', 'integer', (c) => c.notNull().references('publications.id'))
    .addColumn('corrected_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('accounts')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('email', 'text', (c) =>
      c
        .notNull()
        .unique()
        .check(sql`email = lower(email)`),
    )
    .addColumn('plan', 'text', (c) => c.notNull().check(sql`plan in ('free', 'starter', 'professional', 'business', 'enterprise')`))
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .defaultTo('active')
        .check(sql`status in ('active', 'suspended')`),
    )
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('account_id', 'uuid', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('prefix', 'text', (c) =>
      c
        .notNull()
        .unique()
        .check(sql`prefix ~ '^[a-z]+[0-9]*$'`),
    )
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('last_four', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .defaultTo('active')
        .check(sql`status in ('active', 'revoked')`),
    )
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('revoked_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('api_keys_account_idx').on('api_keys').column('account_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('api_keys').execute();
  await db.schema.dropTable('accounts').execute();
  await db.schema.dropTable('rate_corrections').execute();
  await db.schema.dropTable('rates').execute();
  await db.schema.dropTable('publications').execute();
}
