// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';
import * as m0011 from './0011_grant_units.js';
import * as m0012 from './0012_grant_units_no_key_lock.js';
import * as m0015 from './0015_grant_units_many.js';

/**
 * The quota grant (D17, D36; src/db/quota.ts) as one function for one account or many, replacing
 * the three declared before (grant_units of 0011/0012 and of 0013, grant_units_many of 0015).
 *
 * Each ask names an account, the count it draws on (`p_periods`: the paid period starting that
 * day, or null for Free's one-time count), its limit and the units its waiting requests want. The
 * function locks the asks' account rows, in the order of their ids so that two grants sharing
 * accounts cannot wait for each other in a circle; a racing grant waits for the lock, then reads
 * the count it updated, so the count is exact. Each count is read as it stands (0 once the ask's
 * period is newer than the stored one; the period only moves forward, so a request stamped with an
 * older period counts in the stored one), and at most what is left is granted. One row per ask
 * whose account exists, in the asks' order: its position (from 1), the count before the grant, the
 * units granted and the period that took them (null for Free's count).
 *
 * A PL/pgSQL function keeps its statements' plans for the life of the connection, where the same
 * work sent as one statement would be planned on every grant. One ask, the usual case, takes a
 * path of its own with plain single-row statements, which cost less than the set-based one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop function grant_units(uuid, date, integer, integer, timestamptz)`.execute(db);
  await sql`drop function grant_units(uuid, date, integer, integer)`.execute(db);
  await sql`drop function grant_units_many(uuid[], date[], integer[], integer[])`.execute(db);
  await sql`
    create function grant_units(p_accounts uuid[], p_periods date[], p_limits integer[], p_wanted integer[])
    returns table (ask_position bigint, start integer, granted integer, counted_in date)
    language plpgsql as $$
    #variable_conflict use_column
    declare
      v_period date := p_periods[1];
      v_used integer;
      v_counted_in date;
      v_granted integer;
    begin
      if cardinality(p_accounts) = 1 then
        select case when v_period is null then a.free_used
                    when a.quota_period >= v_period then a.quota_used
                    else 0 end,
               case when v_period is null then null else greatest(a.quota_period, v_period) end
          into v_used, v_counted_in
          from accounts a where a.id = p_accounts[1] for no key update;
        if not found then
          return;
        end if;
        v_granted := least(greatest(p_limits[1] - v_used, 0), p_wanted[1]);
        if v_period is null then
          update accounts set free_used = v_used + v_granted where id = p_accounts[1];
        else
          update accounts set quota_used = v_used + v_granted, quota_period = v_counted_in where id = p_accounts[1];
        end if;
        return query select 1::bigint, v_used, v_granted, v_counted_in;
        return;
      end if;
      return query
      with ask as (
        select a.account_id, a.period, a.quota_limit, a.wanted, a.ask_position
        from unnest(p_accounts, p_periods, p_limits, p_wanted) with ordinality as a(account_id, period, quota_limit, wanted, ask_position)
      ), locked as (
        -- locked in the order of the sort, after it
        select acc.id, acc.free_used, acc.quota_used, acc.quota_period
        from accounts acc where acc.id = any(p_accounts) order by acc.id for no key update
      ), counted as (
        select ask.ask_position, l.id, ask.period, ask.wanted, ask.quota_limit,
               case when ask.period is null then l.free_used
                    when l.quota_period >= ask.period then l.quota_used
                    else 0 end as used,
               greatest(l.quota_period, ask.period) as new_period
        from ask join locked l on l.id = ask.account_id
      ), granting as (
        select c.*, least(greatest(c.quota_limit - c.used, 0), c.wanted) as units from counted c
      ), updated as (
        update accounts acc set
          free_used = case when g.period is null then g.used + g.units else acc.free_used end,
          quota_used = case when g.period is null then acc.quota_used else g.used + g.units end,
          quota_period = case when g.period is null then acc.quota_period else g.new_period end
        from granting g where acc.id = g.id
        returning g.ask_position, g.used, g.units, case when g.period is null then null else g.new_period end
      )
      select * from updated order by 1;
    end
    $$`.execute(db);
}

/** Back to the functions of 0015: those migrations declare them again, as they did. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop function grant_units(uuid[], date[], integer[], integer[])`.execute(db);
  await m0011.up(db);
  await m0012.up(db);
  await m0015.up(db);
  // 0013's one-account grant did for one account what grant_units_many does for several.
  await sql`
    create function grant_units(p_account uuid, p_period date, p_limit integer, p_wanted integer)
    returns table (start integer, granted integer, counted_in date)
    language sql as $$
      select g.start, g.granted, g.counted_in from grant_units_many(array[p_account], array[p_period], array[p_limit], array[p_wanted]) g
    $$`.execute(db);
}
