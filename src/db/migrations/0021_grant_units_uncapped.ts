// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

/**
 * grant_units (0018) declared again, whole, with a path of its own for a grant of several accounts
 * none of whose asks has a capped key: the caller then sends null for the keys and caps
 * (src/db/quota.ts), and the function does the set-based grant of 0016, which neither reads nor
 * locks a key row. That is the usual grant of a busy service, many customers at once with keys
 * without a cap, and it costs less than the capped path with every key null. The other two paths
 * are 0018's: one ask, and several with a capped key among them (accounts locked, then their keys,
 * each in the order of their ids). Arguments, rows and counts are as before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create or replace function grant_units(p_accounts uuid[], p_periods date[], p_limits integer[], p_wanted integer[], p_keys uuid[], p_caps integer[])
    returns table (ask_position bigint, start integer, granted integer, counted_in date, key_start integer)
    language plpgsql as $$
    #variable_conflict use_column
    declare
      v_period date := p_periods[1];
      v_key uuid := p_keys[1];
      v_used integer;
      v_counted_in date;
      v_granted integer;
      v_key_used integer;
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
        if v_key is not null then
          select case when v_period is null then k.cap_free_used
                      when k.cap_period >= v_counted_in then k.cap_used
                      else 0 end
            into v_key_used
            from api_keys k where k.id = v_key for no key update;
          if found then
            v_granted := least(v_granted, greatest(p_caps[1] - v_key_used, 0));
            if v_period is null then
              update api_keys set cap_free_used = v_key_used + v_granted where id = v_key;
            else
              update api_keys set cap_used = v_key_used + v_granted, cap_period = v_counted_in where id = v_key;
            end if;
          end if;
        end if;
        if v_period is null then
          update accounts set free_used = v_used + v_granted where id = p_accounts[1];
        else
          update accounts set quota_used = v_used + v_granted, quota_period = v_counted_in where id = p_accounts[1];
        end if;
        return query select 1::bigint, v_used, v_granted, v_counted_in, v_key_used;
        return;
      end if;
      if p_keys is null then
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
          returning g.ask_position, g.used, g.units, case when g.period is null then null else g.new_period end, null::integer
        )
        select * from updated order by 1;
        return;
      end if;
      if exists (select 1 from unnest(p_keys) k where k is not null) then
        perform 1 from accounts acc where acc.id = any(p_accounts) order by acc.id for no key update;
        perform 1 from api_keys k where k.id = any(p_keys) order by k.id for no key update;
      end if;
      return query
      with ask as (
        select a.account_id, a.period, a.quota_limit, a.wanted, a.key_id, a.cap, a.ask_position
        from unnest(p_accounts, p_periods, p_limits, p_wanted, p_keys, p_caps)
          with ordinality as a(account_id, period, quota_limit, wanted, key_id, cap, ask_position)
      ), locked as (
        -- locked in the order of the sort, after it
        select acc.id, acc.free_used, acc.quota_used, acc.quota_period
        from accounts acc where acc.id = any(p_accounts) order by acc.id for no key update
      ), counted as (
        select ask.ask_position, l.id, ask.period, ask.wanted, ask.quota_limit, ask.key_id, ask.cap,
               case when ask.period is null then l.free_used
                    when l.quota_period >= ask.period then l.quota_used
                    else 0 end as used,
               greatest(l.quota_period, ask.period) as new_period
        from ask join locked l on l.id = ask.account_id
      ), keyed as (
        select c.*,
               case when k.id is null then null
                    when c.period is null then k.cap_free_used
                    when k.cap_period >= c.new_period then k.cap_used
                    else 0 end as key_used
        from counted c left join api_keys k on k.id = c.key_id
      ), granting as (
        select g.*,
               least(greatest(g.quota_limit - g.used, 0), g.wanted,
                     case when g.key_used is null then g.wanted else greatest(g.cap - g.key_used, 0) end) as units
        from keyed g
      ), keys_counted as (
        update api_keys k set
          cap_free_used = case when g.period is null then g.key_used + g.units else k.cap_free_used end,
          cap_used = case when g.period is null then k.cap_used else g.key_used + g.units end,
          cap_period = case when g.period is null then k.cap_period else g.new_period end
        from granting g where k.id = g.key_id and g.key_used is not null
      ), updated as (
        update accounts acc set
          free_used = case when g.period is null then g.used + g.units else acc.free_used end,
          quota_used = case when g.period is null then acc.quota_used else g.used + g.units end,
          quota_period = case when g.period is null then acc.quota_period else g.new_period end
        from granting g where acc.id = g.id
        returning g.ask_position, g.used, g.units, case when g.period is null then null else g.new_period end, g.key_used
      )
      select * from updated order by 1;
    end
    $$`.execute(db);
}

/**
 * Nothing to undo: this declaration answers every call of 0018's exactly as 0018's did (a null list
 * of keys reads there as no key for any ask), and 0018's down drops it by its arguments.
 */
export async function down(): Promise<void> {}
