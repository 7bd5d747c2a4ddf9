// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

/**
 * grant_units (0011) locked the account's row `for update`, which also waits for every open
 * transaction that merely references the account: inserting a row with a foreign key to
 * `accounts` (a usage flush, a new key, a subscription) holds a key-share lock on it until commit,
 * so a grant queued behind a long flush. The grant changes only counters, never the key, so
 * `for no key update` is the lock it needs: racing grants still wait for each other (the count
 * stays exact), and references no longer hold them up. The rest of the function is unchanged.
 */
function grantUnits(lock: 'for update' | 'for no key update') {
  return sql`
    create or replace function grant_units(p_account uuid, p_period date, p_limit integer, p_wanted integer, p_deadline timestamptz)
    returns table (start integer, granted integer)
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
        from accounts a where a.id = p_account ${sql.raw(lock)};
      if not found or (p_deadline is not null and clock_timestamp() >= p_deadline) then
        return;
      end if;
      v_granted := least(greatest(p_limit - v_used, 0), p_wanted);
      if p_period is null then
        update accounts set free_used = v_used + v_granted where id = p_account;
      else
        update accounts set quota_used = v_used + v_granted, quota_period = v_period where id = p_account;
      end if;
      start := v_used;
      granted := v_granted;
      return next;
    end
    $$`;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await grantUnits('for no key update').execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await grantUnits('for update').execute(db);
}
