// Frozen: the schema of the first release. Once it has shipped, a change is a new migration.
import { sql, type Kysely, type RawBuilder } from 'kysely';

/**
 * The whole schema, in the order its tables refer to each other. src/db/schema.sql shows it as a
 * migrated database has it (`npm run schema:dump`); docs/decisions.md is cited as D1, D2, ….
 */
const TABLES: RawBuilder<unknown>[] = [
  sql`
    create table publications (
      id integer generated always as identity primary key,
      source text not null,
      format text not null check (format in ('csv', 'xls', 'rss')),
      rba_publication_date date,
      first_date date not null,
      last_date date not null,
      days integer not null,
      inserted integer not null,
      updated integer not null,
      stored_at timestamptz not null default now()
    )`,
  // Plain numeric keeps the scale the RBA published ('61.40') and is exact.
  sql`
    create table rates (
      date date not null,
      code text not null check (code ~ '^[A-Z]{3}$'),
      value numeric not null check (value >= 0),
      publication_id integer not null references publications (id),
      constraint rates_pkey primary key (date, code)
    )`,
  // "Newest day on which code X has a rate" (D10) and dated conversions (D9) walk this index.
  sql`create index rates_code_date_idx on rates (code, date)`,
  sql`
    create table rate_corrections (
      id integer generated always as identity primary key,
      date date not null,
      code text not null,
      previous_value numeric not null,
      value numeric not null,
      publication_id integer not null references publications (id),
      corrected_at timestamptz not null default now()
    )`,
  // Which history workbooks (RBA_HISTORY_URLS) have been stored, so each is fetched once.
  sql`
    create table history_imports (
      source text primary key,
      days integer not null,
      first_date date not null,
      last_date date not null,
      imported_at timestamptz not null default now()
    )`,

  // The quota's counts live on the account (D16, D17, D35): the paid plans' count of the period
  // starting on `quota_period` (the billing day is the sign-up day unless the operator sets
  // another), and Free's one-time allowance apart, so that moving to a paid plan starts its first
  // period at 0 and moving back to Free continues the allowance where it stood.
  sql`
    create table accounts (
      id uuid primary key default gen_random_uuid(),
      email text not null unique check (email = lower(email)),
      plan text not null check (plan in ('free', 'starter', 'professional', 'business', 'enterprise')),
      status text not null default 'active' check (status in ('active', 'suspended')),
      created_at timestamptz not null default now(),
      billing_day smallint not null default extract(day from now()) check (billing_day between 1 and 31),
      quota_period date not null default '1970-01-01',
      quota_used integer not null default 0 check (quota_used >= 0),
      free_used integer not null default 0 check (free_used >= 0)
    )`,
  // Restrictions are null when unset; a capped key keeps its own count of the account's units as
  // the account does (a paid period's with its period, Free's apart).
  sql`
    create table api_keys (
      id uuid primary key default gen_random_uuid(),
      account_id uuid not null references accounts (id) on delete cascade,
      prefix text not null unique check (prefix ~ '^[a-z]+[0-9]*$'),
      key_hash text not null unique,
      last_four text not null,
      status text not null default 'active' check (status in ('active', 'revoked')),
      created_at timestamptz not null default now(),
      revoked_at timestamptz,
      allowed_ips text[],
      allowed_endpoints text[],
      expires_on date,
      monthly_cap integer check (monthly_cap >= 0),
      cap_used integer not null default 0,
      cap_period date,
      cap_free_used integer not null default 0
    )`,
  sql`create index api_keys_account_idx on api_keys (account_id)`,

  // A grant whose commit went unanswered (src/rest/unanswered-grants.ts) is refunded at most once
  // per transaction and account; whether it committed is read from the mark it wrote, not from its
  // transaction id, which a server restarting after a crash may hand out again. Marks are kept an hour.
  sql`
    create table quota_refunds (
      grant_transaction bigint not null,
      account_id uuid not null references accounts (id) on delete cascade,
      period date,
      units integer not null check (units > 0),
      refunded_at timestamptz not null default now(),
      constraint quota_refunds_pkey primary key (grant_transaction, account_id)
    )`,
  sql`
    create table quota_grant_marks (
      mark uuid primary key,
      granted_at timestamptz not null default now()
    )`,
  // Keyless /convert (D19): one fixed window per client, opened by its first counted request.
  sql`
    create table free_convert_windows (
      client text primary key,
      window_start timestamptz not null,
      requests integer not null
    )`,

  // Usage per Sydney day, account, key, endpoint and status, for the analytics, and its roll-ups,
  // written in the same batched writes (src/db/usage.ts) so a year of many accounts is not summed
  // row by row: per day, endpoint and status; per account and day, month and year.
  sql`
    create table usage_daily (
      day date not null,
      account_id uuid not null references accounts (id) on delete cascade,
      key_id uuid not null references api_keys (id) on delete cascade,
      endpoint text not null,
      status smallint not null,
      requests integer not null,
      constraint usage_daily_pkey primary key (day, account_id, key_id, endpoint, status)
    )`,
  sql`
    create table usage_totals_daily (
      day date not null,
      endpoint text not null,
      status smallint not null,
      requests bigint not null,
      constraint usage_totals_daily_pkey primary key (day, endpoint, status)
    )`,
  sql`
    create table usage_account_daily (
      day date not null,
      account_id uuid not null references accounts (id) on delete cascade,
      requests bigint not null,
      constraint usage_account_daily_pkey primary key (day, account_id)
    )`,
  sql`
    create table usage_account_monthly (
      month date not null,
      account_id uuid not null references accounts (id) on delete cascade,
      requests bigint not null,
      constraint usage_account_monthly_pkey primary key (month, account_id)
    )`,
  sql`
    create table usage_account_yearly (
      year date not null,
      account_id uuid not null references accounts (id) on delete cascade,
      requests bigint not null,
      constraint usage_account_yearly_pkey primary key (year, account_id)
    )`,
  // The pairs /convert answered, keyed and keyless, dated or latest, per day and per month.
  sql`
    create table conversions_daily (
      day date not null,
      from_code text not null,
      to_code text not null,
      keyed boolean not null,
      dated boolean not null,
      requests integer not null,
      constraint conversions_daily_pkey primary key (day, from_code, to_code, keyed, dated)
    )`,
  sql`
    create table conversions_monthly (
      month date not null,
      from_code text not null,
      to_code text not null,
      keyed boolean not null,
      dated boolean not null,
      requests bigint not null,
      constraint conversions_monthly_pkey primary key (month, from_code, to_code, keyed, dated)
    )`,
  // Keyless /convert requests by outcome, which have no account.
  sql`
    create table keyless_usage_daily (
      day date not null,
      endpoint text not null,
      status smallint not null,
      requests integer not null,
      constraint keyless_usage_daily_pkey primary key (day, endpoint, status)
    )`,
  // One row per RBA poll of the scheduler, kept 90 days.
  sql`
    create table rba_polls (
      id bigint generated always as identity primary key,
      polled_at timestamptz not null,
      duration_ms integer not null,
      reason text not null,
      expected_date date not null,
      outcome text not null check (outcome in ('stored', 'not_published', 'failed')),
      sources text[] not null,
      days_stored integer not null,
      days_updated integer not null,
      newest_date date,
      error text
    )`,
  sql`create index rba_polls_polled_at on rba_polls (polled_at)`,

  // The dashboard's sign-in (D31): e-mailed single-use links and browser sessions, both kept only
  // as a hash of their token. A link's row outlives its use: the rows of the last hour are what the
  // per-address and per-client limits count.
  sql`
    create table sign_in_links (
      token_hash text primary key,
      email text not null,
      client text not null,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      used_at timestamptz
    )`,
  sql`create index sign_in_links_client on sign_in_links (client, created_at)`,
  sql`create index sign_in_links_email on sign_in_links (email, created_at)`,
  sql`
    create table dashboard_sessions (
      token_hash text primary key,
      account_id uuid not null references accounts (id) on delete cascade,
      created_at timestamptz not null,
      last_seen_at timestamptz not null
    )`,
  sql`create index dashboard_sessions_account on dashboard_sessions (account_id)`,

  // Webhooks (D26–D28): the signing secret only sealed (AES-256-GCM); null currencies: every code.
  sql`
    create table webhook_subscriptions (
      id text primary key,
      account_id uuid not null references accounts (id) on delete cascade,
      url text not null,
      currencies text[],
      description text,
      secret_ciphertext text not null,
      is_active boolean not null default true,
      failure_count integer not null default 0,
      last_success_at timestamptz,
      created_at timestamptz not null default now()
    )`,
  sql`create index webhook_subscriptions_account on webhook_subscriptions (account_id)`,

  // Rate alerts: an account's conditions on one code; a firing per alert and rate day (so a
  // publication fires an alert once however many processes store it); the e-mails of firings as
  // an outbox written with them and sent by a job.
  sql`
    create table alerts (
      id text primary key,
      account_id uuid not null references accounts (id) on delete cascade,
      currency text not null,
      condition text not null check (condition in ('above', 'below', 'change_pct')),
      value numeric not null,
      channels text[] not null,
      description text,
      is_active boolean not null default true,
      created_at timestamptz not null default now()
    )`,
  sql`create index alerts_account on alerts (account_id, created_at)`,
  sql`create index alerts_active_currency on alerts (currency) where is_active`,
  sql`
    create table alert_firings (
      id bigint generated always as identity primary key,
      alert_id text not null references alerts (id) on delete cascade,
      rate_date date not null,
      value numeric not null,
      previous_date date not null,
      previous_value numeric not null,
      publication_id integer not null references publications (id),
      fired_at timestamptz not null,
      constraint alert_firings_once unique (alert_id, rate_date)
    )`,
  sql`create index alert_firings_rate_date on alert_firings (rate_date)`,
  sql`
    create table alert_emails (
      firing_id bigint primary key references alert_firings (id) on delete cascade,
      state text not null default 'pending' check (state in ('pending', 'sent', 'failed', 'abandoned')),
      attempts integer not null default 0,
      next_attempt_at timestamptz not null,
      leased_until timestamptz,
      last_error text,
      sent_at timestamptz
    )`,
  sql`create index alert_emails_due on alert_emails (next_attempt_at) where state = 'pending'`,

  // One row per subscription and event (and alert): the delivery id stays the same on every retry,
  // and the payload is the exact body of every attempt. A process working on a delivery holds it
  // until `leased_until`; `redelivered_at` tells a failed redelivery from a retry schedule run out.
  sql`
    create table webhook_deliveries (
      id uuid primary key,
      subscription_id text not null references webhook_subscriptions (id) on delete cascade,
      event text not null,
      rate_date date not null,
      publication_id integer not null references publications (id),
      payload text not null,
      state text not null default 'pending' check (state in ('pending', 'delivered', 'failed', 'abandoned')),
      attempts integer not null default 0,
      next_attempt_at timestamptz not null,
      leased_until timestamptz,
      last_status smallint,
      last_error text,
      created_at timestamptz not null,
      finished_at timestamptz,
      redelivered_at timestamptz,
      alert_id text,
      constraint webhook_deliveries_once unique nulls not distinct (subscription_id, event, rate_date, alert_id)
    )`,
  sql`create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where state = 'pending'`,
  sql`create index webhook_deliveries_rate_date on webhook_deliveries (rate_date, event)`,
  sql`create index webhook_deliveries_subscription on webhook_deliveries (subscription_id, created_at desc, id desc)`,
  // One row per attempt, test deliveries included (which have no delivery row, so `delivery_id` is
  // no foreign key), pruned after the retention.
  sql`
    create table webhook_attempts (
      id bigint generated always as identity primary key,
      delivery_id uuid not null,
      subscription_id text not null references webhook_subscriptions (id) on delete cascade,
      event text not null check (event in ('rates.published', 'rates.test', 'rates.alert')),
      rate_date date not null,
      attempt smallint not null,
      attempted_at timestamptz not null,
      duration_ms integer not null,
      http_status smallint,
      error text,
      outcome text not null check (outcome in ('delivered', 'failed'))
    )`,
  sql`create index webhook_attempts_attempted_at on webhook_attempts (attempted_at)`,
  sql`create index webhook_attempts_rate_date on webhook_attempts (rate_date, event)`,
  sql`create index webhook_attempts_subscription on webhook_attempts (subscription_id, attempted_at desc, id desc)`,
  // webhookHealth's roll-ups, kept in step wherever a delivery or attempt is recorded or changes.
  sql`
    create table webhook_deliveries_daily (
      rate_date date not null,
      state text not null,
      deliveries integer not null,
      attempts integer not null,
      constraint webhook_deliveries_daily_pkey primary key (rate_date, state)
    )`,
  sql`
    create table webhook_attempt_durations (
      rate_date date not null,
      duration_ms integer not null,
      attempts integer not null,
      constraint webhook_attempt_durations_pkey primary key (rate_date, duration_ms)
    )`,
];

/** The tables, those that refer to others first. */
const DROPPED_IN_ORDER = [
  'webhook_attempt_durations',
  'webhook_deliveries_daily',
  'webhook_attempts',
  'webhook_deliveries',
  'alert_emails',
  'alert_firings',
  'alerts',
  'webhook_subscriptions',
  'dashboard_sessions',
  'sign_in_links',
  'rba_polls',
  'keyless_usage_daily',
  'conversions_monthly',
  'conversions_daily',
  'usage_account_yearly',
  'usage_account_monthly',
  'usage_account_daily',
  'usage_totals_daily',
  'usage_daily',
  'free_convert_windows',
  'quota_grant_marks',
  'quota_refunds',
  'api_keys',
  'accounts',
  'history_imports',
  'rate_corrections',
  'rates',
  'publications',
];

/**
 * The quota's grant (D16, D17, D35, D36; src/db/quota.ts, docs/architecture.md "The quota"): the
 * waiting requests of several accounts in one call. Each ask names an account, the count it draws
 * on (`p_periods`: the paid period starting that day, or null for Free's one-time count), its limit,
 * the units wanted and, for a capped key, the key and its cap. It locks the asks' accounts, then
 * their keys, each in the order of their ids (so two grants never wait for each other in a circle;
 * `for no key update`, so a transaction that merely references an account does not hold a grant
 * up): the keys' lock waits on the count of the locked accounts, so every account is locked before
 * any key. A row locked in the statement is read as its holder left it (in read committed, a
 * locking read returns the newest version of a row it waited for), and the counts are computed
 * from those rows alone. Each count is read as it stands (0 once the ask's period is newer; the
 * period only moves forward) and at most what is left of it, and of the key's cap, is granted. `p_mark`, when given, is written in the grant's
 * transaction so that whether it committed can be read later (quota_grant_marks). One row per ask
 * whose account exists, in the asks' order: its position (from 1), the count before the grant, the
 * units granted, the period that took them (null for Free's) and the capped key's count before.
 */
const GRANT_UNITS = sql`
  create function grant_units(p_mark uuid, p_accounts uuid[], p_periods date[], p_limits integer[], p_wanted integer[], p_keys uuid[], p_caps integer[])
  returns table (ask_position bigint, start integer, granted integer, counted_in date, key_start integer)
  language plpgsql as $$
  #variable_conflict use_column
  begin
    if p_mark is not null then
      insert into quota_grant_marks (mark) values (p_mark);
    end if;
    return query
    with ask as (
      select a.account_id, a.period, a.quota_limit, a.wanted, a.key_id, a.cap, a.ask_position
      from unnest(p_accounts, p_periods, p_limits, p_wanted, p_keys, p_caps)
        with ordinality as a(account_id, period, quota_limit, wanted, key_id, cap, ask_position)
    ), locked_accounts as (
      select acc.id, acc.free_used, acc.quota_used, acc.quota_period
      from accounts acc where acc.id = any(p_accounts) order by acc.id for no key update
    ), locked_keys as (
      select k.id, k.cap_free_used, k.cap_used, k.cap_period
      from api_keys k where k.id = any(p_keys) and (select count(*) from locked_accounts) >= 0 order by k.id for no key update
    ), counted as (
      select ask.*,
             case when ask.period is null then acc.free_used
                  when acc.quota_period >= ask.period then acc.quota_used
                  else 0 end as used,
             greatest(acc.quota_period, ask.period) as new_period
      from ask join locked_accounts acc on acc.id = ask.account_id
    ), keyed as (
      select c.*,
             case when k.id is null then null
                  when c.period is null then k.cap_free_used
                  when k.cap_period >= c.new_period then k.cap_used
                  else 0 end as key_used
      from counted c left join locked_keys k on k.id = c.key_id
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
      from granting g where acc.id = g.account_id
      returning g.ask_position, g.used, g.units, case when g.period is null then null else g.new_period end, g.key_used
    )
    select * from updated order by 1;
  end
  $$`;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of TABLES) await statement.execute(db);
  await GRANT_UNITS.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop function grant_units`.execute(db);
  for (const table of DROPPED_IN_ORDER) await db.schema.dropTable(table).execute();
}
