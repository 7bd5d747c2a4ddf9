-- The schema the migrations make (src/db/migrations). Written by `npm run schema:dump`: do not edit.

create table accounts (
  id uuid default gen_random_uuid() not null,
  email text not null,
  plan text not null,
  status text default 'active'::text not null,
  created_at timestamp with time zone default now() not null,
  billing_day smallint default EXTRACT(day FROM now()) not null,
  quota_period date default '1970-01-01'::date not null,
  quota_used integer default 0 not null,
  free_used integer default 0 not null,
  constraint accounts_pkey PRIMARY KEY (id),
  constraint accounts_email_key UNIQUE (email),
  constraint accounts_billing_day_check CHECK (((billing_day >= 1) AND (billing_day <= 31))),
  constraint accounts_email_check CHECK ((email = lower(email))),
  constraint accounts_free_used_check CHECK ((free_used >= 0)),
  constraint accounts_plan_check CHECK ((plan = ANY (ARRAY['free'::text, 'starter'::text, 'professional'::text, 'business'::text, 'enterprise'::text]))),
  constraint accounts_quota_used_check CHECK ((quota_used >= 0)),
  constraint accounts_status_check CHECK ((status = ANY (ARRAY['active'::text, 'suspended'::text])))
);

create table alert_emails (
  firing_id bigint not null,
  state text default 'pending'::text not null,
  attempts integer default 0 not null,
  next_attempt_at timestamp with time zone not null,
  leased_until timestamp with time zone,
  last_error text,
  sent_at timestamp with time zone,
  constraint alert_emails_pkey PRIMARY KEY (firing_id),
  constraint alert_emails_firing_id_fkey FOREIGN KEY (firing_id) REFERENCES alert_firings(id) ON DELETE CASCADE,
  constraint alert_emails_state_check CHECK ((state = ANY (ARRAY['pending'::text, 'sent'::text, 'failed'::text, 'abandoned'::text])))
);
CREATE INDEX alert_emails_due ON public.alert_emails USING btree (next_attempt_at) WHERE (state = 'pending'::text);

create table alert_firings (
  id bigint generated always as identity not null,
  alert_id text not null,
  rate_date date not null,
  value numeric not null,
  previous_date date not null,
  previous_value numeric not null,
  publication_id integer not null,
  fired_at timestamp with time zone not null,
  constraint alert_firings_pkey PRIMARY KEY (id),
  constraint alert_firings_once UNIQUE (alert_id, rate_date),
  constraint alert_firings_alert_id_fkey FOREIGN KEY (alert_id) REFERENCES alerts(id) ON DELETE CASCADE,
  constraint alert_firings_publication_id_fkey FOREIGN KEY (publication_id) REFERENCES publications(id)
);
CREATE INDEX alert_firings_rate_date ON public.alert_firings USING btree (rate_date);

create table alerts (
  id text not null,
  account_id uuid not null,
  currency text not null,
  condition text not null,
  value numeric not null,
  channels text[] not null,
  description text,
  is_active boolean default true not null,
  created_at timestamp with time zone default now() not null,
  constraint alerts_pkey PRIMARY KEY (id),
  constraint alerts_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  constraint alerts_condition_check CHECK ((condition = ANY (ARRAY['above'::text, 'below'::text, 'change_pct'::text])))
);
CREATE INDEX alerts_account ON public.alerts USING btree (account_id, created_at);
CREATE INDEX alerts_active_currency ON public.alerts USING btree (currency) WHERE is_active;

create table api_keys (
  id uuid default gen_random_uuid() not null,
  account_id uuid not null,
  prefix text not null,
  key_hash text not null,
  last_four text not null,
  status text default 'active'::text not null,
  created_at timestamp with time zone default now() not null,
  revoked_at timestamp with time zone,
  allowed_ips text[],
  allowed_endpoints text[],
  expires_on date,
  monthly_cap integer,
  cap_used integer default 0 not null,
  cap_period date,
  cap_free_used integer default 0 not null,
  constraint api_keys_pkey PRIMARY KEY (id),
  constraint api_keys_key_hash_key UNIQUE (key_hash),
  constraint api_keys_prefix_key UNIQUE (prefix),
  constraint api_keys_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  constraint api_keys_monthly_cap_check CHECK ((monthly_cap >= 0)),
  constraint api_keys_prefix_check CHECK ((prefix ~ '^[a-z]+[0-9]*$'::text)),
  constraint api_keys_status_check CHECK ((status = ANY (ARRAY['active'::text, 'revoked'::text])))
);
CREATE INDEX api_keys_account_idx ON public.api_keys USING btree (account_id);

create table conversions_daily (
  day date not null,
  from_code text not null,
  to_code text not null,
  keyed boolean not null,
  dated boolean not null,
  requests integer not null,
  constraint conversions_daily_pkey PRIMARY KEY (day, from_code, to_code, keyed, dated)
);

create table conversions_monthly (
  month date not null,
  from_code text not null,
  to_code text not null,
  keyed boolean not null,
  dated boolean not null,
  requests bigint not null,
  constraint conversions_monthly_pkey PRIMARY KEY (month, from_code, to_code, keyed, dated)
);

create table dashboard_sessions (
  token_hash text not null,
  account_id uuid not null,
  created_at timestamp with time zone not null,
  last_seen_at timestamp with time zone not null,
  constraint dashboard_sessions_pkey PRIMARY KEY (token_hash),
  constraint dashboard_sessions_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE
);
CREATE INDEX dashboard_sessions_account ON public.dashboard_sessions USING btree (account_id);

create table free_convert_windows (
  client text not null,
  window_start timestamp with time zone not null,
  requests integer not null,
  constraint free_convert_windows_pkey PRIMARY KEY (client)
);

create table history_imports (
  source text not null,
  days integer not null,
  first_date date not null,
  last_date date not null,
  imported_at timestamp with time zone default now() not null,
  constraint history_imports_pkey PRIMARY KEY (source)
);

create table keyless_usage_daily (
  day date not null,
  endpoint text not null,
  status smallint not null,
  requests integer not null,
  constraint keyless_usage_daily_pkey PRIMARY KEY (day, endpoint, status)
);

create table publications (
  id integer generated always as identity not null,
  source text not null,
  format text not null,
  rba_publication_date date,
  first_date date not null,
  last_date date not null,
  days integer not null,
  inserted integer not null,
  updated integer not null,
  stored_at timestamp with time zone default now() not null,
  constraint publications_pkey PRIMARY KEY (id),
  constraint publications_format_check CHECK ((format = ANY (ARRAY['csv'::text, 'xls'::text, 'rss'::text])))
);

create table quota_grant_marks (
  mark uuid not null,
  granted_at timestamp with time zone default now() not null,
  constraint quota_grant_marks_pkey PRIMARY KEY (mark)
);

create table quota_refunds (
  grant_transaction bigint not null,
  account_id uuid not null,
  period date,
  units integer not null,
  refunded_at timestamp with time zone default now() not null,
  constraint quota_refunds_pkey PRIMARY KEY (grant_transaction, account_id),
  constraint quota_refunds_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  constraint quota_refunds_units_check CHECK ((units > 0))
);

create table rate_corrections (
  id integer generated always as identity not null,
  date date not null,
  code text not null,
  previous_value numeric not null,
  value numeric not null,
  publication_id integer not null,
  corrected_at timestamp with time zone default now() not null,
  constraint rate_corrections_pkey PRIMARY KEY (id),
  constraint rate_corrections_publication_id_fkey FOREIGN KEY (publication_id) REFERENCES publications(id)
);

create table rates (
  date date not null,
  code text not null,
  value numeric not null,
  publication_id integer not null,
  constraint rates_pkey PRIMARY KEY (date, code),
  constraint rates_publication_id_fkey FOREIGN KEY (publication_id) REFERENCES publications(id),
  constraint rates_code_check CHECK ((code ~ '^[A-Z]{3}$'::text)),
  constraint rates_value_check CHECK ((value >= (0)::numeric))
);
CREATE INDEX rates_code_date_idx ON public.rates USING btree (code, date);

create table rba_polls (
  id bigint generated always as identity not null,
  polled_at timestamp with time zone not null,
  duration_ms integer not null,
  reason text not null,
  expected_date date not null,
  outcome text not null,
  sources text[] not null,
  days_stored integer not null,
  days_updated integer not null,
  newest_date date,
  error text,
  constraint rba_polls_pkey PRIMARY KEY (id),
  constraint rba_polls_outcome_check CHECK ((outcome = ANY (ARRAY['stored'::text, 'not_published'::text, 'failed'::text])))
);
CREATE INDEX rba_polls_polled_at ON public.rba_polls USING btree (polled_at);

create table sign_in_links (
  token_hash text not null,
  email text not null,
  client text not null,
  created_at timestamp with time zone not null,
  expires_at timestamp with time zone not null,
  used_at timestamp with time zone,
  constraint sign_in_links_pkey PRIMARY KEY (token_hash)
);
CREATE INDEX sign_in_links_client ON public.sign_in_links USING btree (client, created_at);
CREATE INDEX sign_in_links_email ON public.sign_in_links USING btree (email, created_at);

create table usage_account_daily (
  day date not null,
  account_id uuid not null,
  requests bigint not null,
  constraint usage_account_daily_pkey PRIMARY KEY (day, account_id),
  constraint usage_account_daily_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE
);

create table usage_account_monthly (
  month date not null,
  account_id uuid not null,
  requests bigint not null,
  constraint usage_account_monthly_pkey PRIMARY KEY (month, account_id),
  constraint usage_account_monthly_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE
);

create table usage_account_yearly (
  year date not null,
  account_id uuid not null,
  requests bigint not null,
  constraint usage_account_yearly_pkey PRIMARY KEY (year, account_id),
  constraint usage_account_yearly_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE
);

create table usage_daily (
  day date not null,
  account_id uuid not null,
  key_id uuid not null,
  endpoint text not null,
  status smallint not null,
  requests integer not null,
  constraint usage_daily_pkey PRIMARY KEY (day, account_id, key_id, endpoint, status),
  constraint usage_daily_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE,
  constraint usage_daily_key_id_fkey FOREIGN KEY (key_id) REFERENCES api_keys(id) ON DELETE CASCADE
);

create table usage_totals_daily (
  day date not null,
  endpoint text not null,
  status smallint not null,
  requests bigint not null,
  constraint usage_totals_daily_pkey PRIMARY KEY (day, endpoint, status)
);

create table webhook_attempt_durations (
  rate_date date not null,
  duration_ms integer not null,
  attempts integer not null,
  constraint webhook_attempt_durations_pkey PRIMARY KEY (rate_date, duration_ms)
);

create table webhook_attempts (
  id bigint generated always as identity not null,
  delivery_id uuid not null,
  subscription_id text not null,
  event text not null,
  rate_date date not null,
  attempt smallint not null,
  attempted_at timestamp with time zone not null,
  duration_ms integer not null,
  http_status smallint,
  error text,
  outcome text not null,
  request_body text,
  response_body text,
  constraint webhook_attempts_pkey PRIMARY KEY (id),
  constraint webhook_attempts_subscription_id_fkey FOREIGN KEY (subscription_id) REFERENCES webhook_subscriptions(id) ON DELETE CASCADE,
  constraint webhook_attempts_event_check CHECK ((event = ANY (ARRAY['rates.published'::text, 'rates.test'::text, 'rates.alert'::text]))),
  constraint webhook_attempts_outcome_check CHECK ((outcome = ANY (ARRAY['delivered'::text, 'failed'::text])))
);
CREATE INDEX webhook_attempts_attempted_at ON public.webhook_attempts USING btree (attempted_at);
CREATE INDEX webhook_attempts_rate_date ON public.webhook_attempts USING btree (rate_date, event);
CREATE INDEX webhook_attempts_subscription ON public.webhook_attempts USING btree (subscription_id, attempted_at DESC, id DESC);

create table webhook_deliveries (
  id uuid not null,
  subscription_id text not null,
  event text not null,
  rate_date date not null,
  publication_id integer not null,
  payload text not null,
  state text default 'pending'::text not null,
  attempts integer default 0 not null,
  next_attempt_at timestamp with time zone not null,
  leased_until timestamp with time zone,
  last_status smallint,
  last_error text,
  created_at timestamp with time zone not null,
  finished_at timestamp with time zone,
  redelivered_at timestamp with time zone,
  alert_id text,
  constraint webhook_deliveries_pkey PRIMARY KEY (id),
  constraint webhook_deliveries_once UNIQUE NULLS NOT DISTINCT (subscription_id, event, rate_date, alert_id),
  constraint webhook_deliveries_publication_id_fkey FOREIGN KEY (publication_id) REFERENCES publications(id),
  constraint webhook_deliveries_subscription_id_fkey FOREIGN KEY (subscription_id) REFERENCES webhook_subscriptions(id) ON DELETE CASCADE,
  constraint webhook_deliveries_state_check CHECK ((state = ANY (ARRAY['pending'::text, 'delivered'::text, 'failed'::text, 'abandoned'::text])))
);
CREATE INDEX webhook_deliveries_due ON public.webhook_deliveries USING btree (next_attempt_at) WHERE (state = 'pending'::text);
CREATE INDEX webhook_deliveries_rate_date ON public.webhook_deliveries USING btree (rate_date, event);
CREATE INDEX webhook_deliveries_subscription ON public.webhook_deliveries USING btree (subscription_id, created_at DESC, id DESC);

create table webhook_deliveries_daily (
  rate_date date not null,
  state text not null,
  deliveries integer not null,
  attempts integer not null,
  constraint webhook_deliveries_daily_pkey PRIMARY KEY (rate_date, state)
);

create table webhook_subscriptions (
  id text not null,
  account_id uuid not null,
  url text not null,
  currencies text[],
  description text,
  secret_ciphertext text not null,
  is_active boolean default true not null,
  failure_count integer default 0 not null,
  last_success_at timestamp with time zone,
  created_at timestamp with time zone default now() not null,
  constraint webhook_subscriptions_pkey PRIMARY KEY (id),
  constraint webhook_subscriptions_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE
);
CREATE INDEX webhook_subscriptions_account ON public.webhook_subscriptions USING btree (account_id);

CREATE OR REPLACE FUNCTION public.grant_units(p_mark uuid, p_accounts uuid[], p_periods date[], p_limits integer[], p_wanted integer[], p_keys uuid[], p_caps integer[])
 RETURNS TABLE(ask_position bigint, start integer, granted integer, counted_in date, key_start integer)
 LANGUAGE plpgsql
AS $function$
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
  $function$;
