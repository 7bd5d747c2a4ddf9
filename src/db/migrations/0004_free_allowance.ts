// Frozen: never edit a migration that has shipped; add a new one.
// Free's 300 requests are a one-time allowance with a count of its own (D35 in docs/decisions.md),
// apart from the paid plans' monthly count: moving to a paid plan starts its first period at 0, and
// moving back to Free continues the allowance where it stood.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('accounts')
    .addColumn('free_used', 'integer', (c) =>
      c
        .notNull()
        .defaultTo(0)
        .check(sql`free_used >= 0`),
    )
    .execute();
  // Until now Free counted in the monthly columns: in the lifetime period, or (after a downgrade) in
  // the paid period it came from. That count is the allowance used so far.
  await sql`
    update accounts set free_used = quota_used, quota_used = 0, quota_period = '1970-01-01'
    where plan = 'free' or quota_period = '1970-01-01'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    update accounts set quota_used = free_used, quota_period = '1970-01-01'
    where plan = 'free'`.execute(db);
  await db.schema.alterTable('accounts').dropColumn('free_used').execute();
}
