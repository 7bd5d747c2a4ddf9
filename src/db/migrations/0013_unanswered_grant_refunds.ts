// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

/**
 * A grant on a Postgres server now commits apart from its statement (src/rest/monthly-quota.ts):
 * the statement's answer says which period took the units and which transaction took them, before
 * the commit is sent. When the commit's own answer is lost (the server stopped or frozen at that
 * instant), the service asks the database later whether that transaction committed, and if it did,
 * gives the units back, once: `quota_refunds` holds one row per refunded grant, keyed by its
 * transaction, so a refund whose own answer is lost can be sent again without counting twice.
 *
 * grant_units gains `counted_in` (the period whose count took the units, null for Free's count)
 * and loses the deadline, which only guarded a grant that committed by itself. The function of
 * 0012 stays beside it, for processes of the previous version still running during an upgrade.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('quota_refunds')
    .addColumn('grant_transaction', 'bigint', (c) => c.primaryKey())
    .addColumn('account_id', 'uuid', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('period', 'date')
    .addColumn('units', 'integer', (c) => c.notNull().check(sql`units > 0`))
    .addColumn('refunded_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`
    create function grant_units(p_account uuid, p_period date, p_limit integer, p_wanted integer)
    returns table (start integer, granted integer, counted_in date)
    language plpgsql as $$
    declare
      v_used integer;
      v_period date;
      v_granted integer;
    begin
      select case when p_period is null then a.free_used
                  when a.quota_period >= p_period then a.quota_used
                  else 0 end,
             greatest(a.quota_period, p_period)
        into v_used, v_period
        from accounts a where a.id = p_account for no key update;
      if not found then
        return;
      end if;
      v_granted := least(greatest(p_limit - v_used, 0), p_wanted);
      if p_period is null then
        update accounts set free_used = v_used + v_granted where id = p_account;
        counted_in := null;
      else
        update accounts set quota_used = v_used + v_granted, quota_period = v_period where id = p_account;
        counted_in := v_period;
      end if;
      start := v_used;
      granted := v_granted;
      return next;
    end
    $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop function grant_units(uuid, date, integer, integer)`.execute(db);
  await db.schema.dropTable('quota_refunds').execute();
}
