// Helpers shared by the limit tests: accounts put near their quota by writing the account row
// directly, and the rate-limit headers read back as numbers.
import { sql } from 'kysely';
import { expect } from 'vitest';
import type { Plan } from '../../src/domain/plans.js';
import type { RequestOptions, TestApp } from '../support/app.js';
import { expectInstant } from '../support/expect.js';
import { graphql } from '../../src/graphql.js';

// Tuesday 12 May 2026, 03:00 UTC. With billing day 20 the period began on 2026-04-20 and the next
// billing date is 2026-05-20 at 00:00 UTC.
export const NOW = '2026-05-12T03:00:00Z';
export const BILLING_DAY = 20;
export const PERIOD = '2026-04-20';
export const RESET = '2026-05-20T00:00:00.000Z';

export const MONTHLY: Record<Plan, number> = {
  free: 300,
  starter: 5_000,
  professional: 50_000,
  business: 500_000,
  enterprise: 5_000_000,
};

export interface QuotaState {
  billingDay?: number;
  /** the count of the account's plan: Free's one-time allowance on Free, else the period's */
  used?: number;
  /** 'YYYY-MM-DD', the first day of the period `used` belongs to */
  period?: string;
}

let accounts = 0;

/** A new account on `plan` with one key; `state` is written to its row before the key is first used. */
export async function account(t: TestApp, plan: Plan, state: QuotaState = {}): Promise<{ email: string; key: string }> {
  const email = `limits-${plan}-${++accounts}-${process.pid}@example.test`;
  const key = await t.createKey(plan, email);
  await setQuota(t, email, state);
  return { email, key };
}

/** Writes billing day, count and period on the account row, and drops the key cache (which holds the billing day). */
export async function setQuota(t: TestApp, email: string, state: QuotaState): Promise<void> {
  const { plan } = await t.db.selectFrom('accounts').select('plan').where('email', '=', email).executeTakeFirstOrThrow();
  const changes: { billing_day?: number; quota_used?: number; free_used?: number; quota_period?: string } = {};
  if (state.billingDay !== undefined) changes.billing_day = state.billingDay;
  if (state.used !== undefined) changes[plan === 'free' ? 'free_used' : 'quota_used'] = state.used;
  if (state.period !== undefined) changes.quota_period = state.period;
  if (Object.keys(changes).length === 0) return;
  const result = await t.db.updateTable('accounts').set(changes).where('email', '=', email).executeTakeFirst();
  expect(Number(result.numUpdatedRows)).toBe(1);
  await t.app.services.changes.publish('keys_changed');
}

/** The account row's quota columns as stored; `used` is the count of the account's plan (as in QuotaState). */
export async function stored(t: TestApp, email: string): Promise<{ used: number; period: string; billingDay: number }> {
  const row = await storedCounts(t, email);
  return { used: row.plan === 'free' ? row.freeUsed : row.monthlyUsed, period: row.period, billingDay: row.billingDay };
}

/** Both counts on the account row: Free's one-time allowance and the paid period's (D35 in docs/decisions.md). */
export async function storedCounts(
  t: TestApp,
  email: string,
): Promise<{ plan: Plan; freeUsed: number; monthlyUsed: number; period: string; billingDay: number }> {
  const row = await t.db
    .selectFrom('accounts')
    .select(['plan', 'free_used', 'quota_used', sql<string>`quota_period::text`.as('period'), 'billing_day'])
    .where('email', '=', email)
    .executeTakeFirstOrThrow();
  return { plan: row.plan, freeUsed: Number(row.free_used), monthlyUsed: Number(row.quota_used), period: row.period, billingDay: Number(row.billing_day) };
}

/** A second key of the account (Professional and above keep both). */
export async function anotherKey(t: TestApp, email: string): Promise<string> {
  const result = await t.operator(graphql('mutation($e: EmailAddress!) { createApiKey(email: $e) { key } }'), { e: email });
  if (result.errors) throw new Error(result.errors[0]!.message);
  return result.data!.createApiKey.key;
}

export async function setPlan(t: TestApp, email: string, plan: Plan): Promise<void> {
  const result = await t.operator(graphql('mutation($e: EmailAddress!, $p: Plan!) { setAccountPlan(email: $e, plan: $p) { plan } }'), { e: email, p: plan });
  if (result.errors) throw new Error(result.errors[0]!.message);
  expect(result.data!.setAccountPlan.plan).toBe(plan);
}

export const RATE_LIMIT_HEADERS = [
  'x-ratelimit-limit-monthly',
  'x-ratelimit-remaining-monthly',
  'x-ratelimit-reset',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-window',
  'retry-after',
];

/** The monthly-quota headers of a keyed response. */
export function monthly(headers: Headers): { limit: number | null; remaining: number | null; reset: string | null } {
  const num = (name: string) => (headers.get(name) === null ? null : Number(headers.get(name)));
  return { limit: num('x-ratelimit-limit-monthly'), remaining: num('x-ratelimit-remaining-monthly'), reset: headers.get('x-ratelimit-reset') };
}

/**
 * A keyed success: the plan's limit, what is left, and (paid plans) the reset instant; never the
 * keyless headers.
 */
export function expectMonthly(headers: Headers, limit: number, remaining: number, reset: string | null): void {
  expect(headers.get('x-ratelimit-limit-monthly')).toBe(String(limit));
  expect(headers.get('x-ratelimit-remaining-monthly')).toBe(String(remaining));
  if (reset === null) expect(headers.get('x-ratelimit-reset')).toBeNull();
  else expectInstant(headers.get('x-ratelimit-reset'), reset);
  expect(headers.get('x-ratelimit-limit')).toBeNull();
  expect(headers.get('x-ratelimit-window')).toBeNull();
}

export function expectNoRateLimitHeaders(headers: Headers): void {
  for (const name of RATE_LIMIT_HEADERS) expect(headers.get(name), name).toBeNull();
}

/** What remains of the account's quota, as a successful keyed /latest reports it (that request included). */
export async function remainingAfterOne(t: TestApp, key: string, options: RequestOptions = {}): Promise<number> {
  const res = await t.request('/latest?symbols=USD', { ...options, key });
  expect(res.status).toBe(200);
  return Number(res.headers.get('x-ratelimit-remaining-monthly'));
}

/** Seconds from `now` to `later`. */
export const secondsBetween = (now: string, later: string): number => (Date.parse(later) - Date.parse(now)) / 1000;
