// The database's shape, as Kysely sees it. Every other type of stored data derives from here.
import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Plan } from '../domain/plans.js';
import type { CurrencyCode } from '../domain/currencies.js';
import type { SourceFormat } from '../domain/source-format.js';

export const ACCOUNT_STATUSES = ['active', 'suspended'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

export const KEY_STATUSES = ['active', 'revoked'] as const;
export type KeyStatus = (typeof KEY_STATUSES)[number];

type CreatedAt = ColumnType<Date, never, never>;

export interface PublicationsTable {
  id: Generated<number>;
  /** where the data came from: a file path, a URL or a feed */
  source: string;
  format: SourceFormat;
  /** the RBA's own publication date printed in the file, when it has one */
  rba_publication_date: string | null;
  first_date: string;
  last_date: string;
  days: number;
  inserted: number;
  updated: number;
  stored_at: ColumnType<Date, Date, never>;
}

export interface RatesTable {
  /** 'YYYY-MM-DD' */
  date: string;
  code: string;
  /** exact decimal text as published, e.g. '61.40' (numeric keeps the published scale) */
  value: string;
  publication_id: number;
}

export interface RateCorrectionsTable {
  id: Generated<number>;
  date: string;
  code: string;
  previous_value: string;
  value: string;
  publication_id: number;
  corrected_at: CreatedAt;
}

export interface AccountsTable {
  id: Generated<string>;
  /** stored lower-case, unique */
  email: string;
  plan: Plan;
  status: ColumnType<AccountStatus, AccountStatus | undefined, AccountStatus>;
  /** the sign-up instant, on the service's clock (src/db/accounts.ts); the column's default is for rows written by hand */
  created_at: ColumnType<Date, Date | undefined, never>;
  /** day of month (1–31) the quota resets: the sign-up day in UTC unless the operator sets another */
  billing_day: ColumnType<number, number | undefined, number>;
  /** first day of the period `quota_used` counts */
  quota_period: ColumnType<string, string | undefined, string>;
  quota_used: ColumnType<number, number | undefined, number>;
  /** requests of Free's one-time allowance used so far (D16, D35 in docs/decisions.md); never reset */
  free_used: ColumnType<number, number | undefined, number>;
}

/** A grant whose commit went unanswered, found committed and given back. */
export interface QuotaRefundsTable {
  /** the grant's transaction (pg_current_xact_id): a grant is refunded at most once */
  grant_transaction: ColumnType<number, number, never>;
  account_id: ColumnType<string, string, never>;
  /** the period whose count took the units; null for Free's one-time count */
  period: ColumnType<string | null, string | null, never>;
  units: ColumnType<number, number, never>;
  refunded_at: CreatedAt;
}

/** The mark a grant that commits apart writes in its transaction: there only if it committed. */
export interface QuotaGrantMarksTable {
  mark: ColumnType<string, string, never>;
  granted_at: CreatedAt;
}

export interface ApiKeysTable {
  id: Generated<string>;
  account_id: string;
  /** the suburb part of the key, unique among all keys ever issued */
  prefix: string;
  /** hex SHA-256 of the whole key */
  key_hash: string;
  last_four: string;
  status: ColumnType<KeyStatus, KeyStatus | undefined, KeyStatus>;
  created_at: CreatedAt;
  revoked_at: ColumnType<Date | null, never, Date>;
  /** CIDR ranges the key may be used from (null: anywhere) */
  allowed_ips: string[] | null;
  /** the endpoint names the key may call (null: every one) */
  allowed_endpoints: string[] | null;
  /** 'YYYY-MM-DD': from 00:00 UTC that day the key is refused (null: never) */
  expires_on: ColumnType<string | null, string | null, string | null>;
  /** at most this many of the account's units a period (null: no cap) */
  monthly_cap: number | null;
  /** the key's units in `cap_period`, counted while it has a cap */
  cap_used: ColumnType<number, never, number>;
  cap_period: ColumnType<string | null, never, string | null>;
  /** the key's units of Free's one-time allowance, counted while it has a cap */
  cap_free_used: ColumnType<number, never, number>;
}

export interface UsageDailyTable {
  day: string;
  account_id: string;
  key_id: string;
  /** the route's operation name */
  endpoint: string;
  status: number;
  requests: number;
}

/** Keyed requests per Sydney day, endpoint and status, all accounts together: a roll-up of `usage_daily`. */
export interface UsageTotalsDailyTable {
  day: string;
  endpoint: string;
  status: number;
  requests: number;
}

/** Keyed requests per account and month (its first day): a roll-up of `usage_daily`. */
export interface UsageAccountMonthlyTable {
  month: string;
  account_id: string;
  requests: number;
}

/** Keyed requests per account and Sydney day: a roll-up of `usage_daily`. */
export interface UsageAccountDailyTable {
  day: string;
  account_id: string;
  requests: number;
}

/** Keyed requests per account and year (its first day): a roll-up of `usage_daily`. */
export interface UsageAccountYearlyTable {
  year: string;
  account_id: string;
  requests: number;
}

/** /convert answers by pair, per Sydney day: with a key or without, dated (historical) or latest. */
export interface ConversionsDailyTable {
  day: string;
  from_code: string;
  to_code: string;
  keyed: boolean;
  dated: boolean;
  requests: number;
}

/** `conversions_daily` per month (its first day): a roll-up for ranges of whole months. */
export interface ConversionsMonthlyTable extends Omit<ConversionsDailyTable, 'day'> {
  month: string;
}

/** Requests without a key (only /convert is counted), per Sydney day, endpoint and status. */
export interface KeylessUsageDailyTable {
  day: string;
  /** the route's operation name */
  endpoint: string;
  status: number;
  requests: number;
}

export type PollOutcome = 'stored' | 'not_published' | 'failed';

/** One poll of the RBA by the scheduler; pruned after 90 days (src/jobs/rba-scheduler.ts). */
export interface RbaPollsTable {
  id: Generated<string>;
  polled_at: Date;
  duration_ms: number;
  /** what started the polling run: 'slot' or 'catch-up' */
  reason: string;
  /** the rate day the poll looked for */
  expected_date: string;
  outcome: PollOutcome;
  /** what was read, in order; for a failed poll, the source that could not be read (none when the store failed) */
  sources: string[];
  /** days not stored before */
  days_stored: number;
  /** stored days that gained or corrected a value */
  days_updated: number;
  /** the newest stored day after the poll; null for a failed poll */
  newest_date: string | null;
  /** why a failed poll failed */
  error: string | null;
}

export interface FreeConvertWindowsTable {
  /** the client address (an IPv6 client by its /64) */
  client: string;
  window_start: Date;
  requests: number;
}

export type DeliveryState = 'pending' | 'delivered' | 'failed' | 'abandoned';

export type WebhookEvent = 'rates.published' | 'rates.test' | 'rates.alert';

export interface WebhookSubscriptionsTable {
  /** 32 lower-case hex characters (D26) */
  id: string;
  account_id: string;
  url: string;
  /** null: every code, now and later */
  currencies: string[] | null;
  description: string | null;
  /** the signing secret sealed with AES-256-GCM (src/webhooks/secret-box.ts) */
  secret_ciphertext: string;
  is_active: ColumnType<boolean, boolean | undefined, boolean>;
  /** consecutive failed attempts (D28) */
  failure_count: ColumnType<number, number | undefined, number>;
  last_success_at: ColumnType<Date | null, never, Date | null>;
  created_at: CreatedAt;
}

export interface WebhookDeliveriesTable {
  /** the X-ExchangeRates-Delivery id, the same on every retry */
  id: string;
  subscription_id: string;
  event: WebhookEvent;
  rate_date: string;
  publication_id: number;
  /** the exact JSON body, signed anew at each attempt */
  payload: string;
  state: ColumnType<DeliveryState, DeliveryState | undefined, DeliveryState>;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: Date;
  leased_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  last_status: ColumnType<number | null, never, number | null>;
  last_error: ColumnType<string | null, never, string | null>;
  created_at: ColumnType<Date, Date, never>;
  finished_at: ColumnType<Date | null, never, Date | null>;
  /** the last redelivery by hand (D42); null when there was none */
  redelivered_at: ColumnType<Date | null, never, Date | null>;
  /** the alert that fired, for a `rates.alert` delivery; null for a publication's */
  alert_id: ColumnType<string | null, string | null | undefined, never>;
}

/** Publications' deliveries per rate day and state, with their attempts: a roll-up of `webhook_deliveries` (alerts' left out), a state with none left at 0. */
export interface WebhookDeliveriesDailyTable {
  rate_date: string;
  state: DeliveryState;
  deliveries: number;
  attempts: number;
}

export type AttemptOutcome = 'delivered' | 'failed';

/** One attempt of a delivery, test deliveries included; pruned after the retention (src/jobs/webhook-deliveries.ts). */
export interface WebhookAttemptsTable {
  id: Generated<string>;
  /** the X-ExchangeRates-Delivery id: a `webhook_deliveries` row's, or a test delivery's own */
  delivery_id: string;
  subscription_id: string;
  event: WebhookEvent;
  rate_date: string;
  /** 1 for the first attempt of a delivery */
  attempt: number;
  attempted_at: Date;
  duration_ms: number;
  /** the receiver's HTTP status; null when it gave none */
  http_status: number | null;
  error: string | null;
  outcome: AttemptOutcome;
  /** the body a test delivery sent; null for a publication's attempt, whose body is its delivery's payload */
  request_body: string | null;
  /** the first bytes of the receiver's answer, as text; null when it gave none */
  response_body: string | null;
}

/** Publication attempts (not tests) per rate day and duration: a roll-up of `webhook_attempts`, pruned with them. */
export interface WebhookAttemptDurationsTable {
  rate_date: string;
  duration_ms: number;
  attempts: number;
}

/** A history workbook (RBA_HISTORY_URLS) stored in full; it is fetched no more. */
export interface HistoryImportsTable {
  source: string;
  days: number;
  first_date: string;
  last_date: string;
  imported_at: ColumnType<Date, Date | undefined, never>;
}

/** An e-mailed sign-in link (D31): single use, short-lived, only its token's hash kept. */
export interface SignInLinksTable {
  token_hash: string;
  /** lower-case, as accounts store it */
  email: string;
  /** the requesting client's address, as the per-client limit counts it */
  client: string;
  created_at: Date;
  expires_at: Date;
  used_at: ColumnType<Date | null, never, Date>;
}

/** A signed-in browser (D31): only its token's hash kept; idle and absolute expiry from these times. */
export interface DashboardSessionsTable {
  token_hash: string;
  account_id: string;
  created_at: ColumnType<Date, Date, never>;
  last_seen_at: Date;
}

export const ALERT_CONDITIONS = ['above', 'below', 'change_pct'] as const;
export type AlertCondition = (typeof ALERT_CONDITIONS)[number];
export const ALERT_CHANNELS = ['email', 'webhook'] as const;
export type AlertChannel = (typeof ALERT_CHANNELS)[number];

/** A rate alert: a condition on one code, checked at every publication. */
export interface AlertsTable {
  /** 32 lower-case hex characters, as a subscription's */
  id: string;
  account_id: string;
  currency: CurrencyCode;
  condition: AlertCondition;
  /** exact decimal text: a rate level (above, below) or a percentage (change_pct) */
  value: string;
  channels: AlertChannel[];
  description: string | null;
  is_active: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: ColumnType<Date, Date | undefined, never>;
}

/** An alert that fired at a publication: once per alert and rate day. */
export interface AlertFiringsTable {
  id: Generated<number>;
  alert_id: string;
  rate_date: string;
  value: string;
  previous_date: string;
  previous_value: string;
  publication_id: number;
  fired_at: Date;
}

export type AlertEmailState = 'pending' | 'sent' | 'failed' | 'abandoned';

/** The e-mail of a firing, written with it and sent by the alert mail job (src/jobs/alert-mail.ts). */
export interface AlertEmailsTable {
  firing_id: number;
  state: ColumnType<AlertEmailState, AlertEmailState | undefined, AlertEmailState>;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: Date;
  leased_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  last_error: ColumnType<string | null, never, string | null>;
  sent_at: ColumnType<Date | null, never, Date | null>;
}

export interface Database {
  publications: PublicationsTable;
  history_imports: HistoryImportsTable;
  rates: RatesTable;
  rate_corrections: RateCorrectionsTable;
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  usage_daily: UsageDailyTable;
  usage_totals_daily: UsageTotalsDailyTable;
  usage_account_daily: UsageAccountDailyTable;
  usage_account_monthly: UsageAccountMonthlyTable;
  usage_account_yearly: UsageAccountYearlyTable;
  conversions_daily: ConversionsDailyTable;
  conversions_monthly: ConversionsMonthlyTable;
  keyless_usage_daily: KeylessUsageDailyTable;
  rba_polls: RbaPollsTable;
  free_convert_windows: FreeConvertWindowsTable;
  quota_refunds: QuotaRefundsTable;
  quota_grant_marks: QuotaGrantMarksTable;
  webhook_subscriptions: WebhookSubscriptionsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  webhook_deliveries_daily: WebhookDeliveriesDailyTable;
  webhook_attempt_durations: WebhookAttemptDurationsTable;
  sign_in_links: SignInLinksTable;
  dashboard_sessions: DashboardSessionsTable;
  alerts: AlertsTable;
  alert_firings: AlertFiringsTable;
  alert_emails: AlertEmailsTable;
}

export type Account = Selectable<AccountsTable>;
export type ApiKey = Selectable<ApiKeysTable>;
export type WebhookSubscription = Selectable<WebhookSubscriptionsTable>;
export type WebhookDelivery = Selectable<WebhookDeliveriesTable>;
export type WebhookAttempt = Selectable<WebhookAttemptsTable>;
export type DashboardSession = Selectable<DashboardSessionsTable>;
export type Alert = Selectable<AlertsTable>;
