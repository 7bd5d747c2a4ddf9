// A key's restrictions in the schema (src/key-restrictions.ts says what each one is): the input that
// sets them when a key is generated or later, and how a change merges with what the key has. A
// field left out keeps the key's restriction, null removes it, and `clear` removes them all first.
import type { Account, ApiKey } from '../db/database.js';
import type { StoredRestrictions } from '../db/api-keys.js';
import { billingPeriod } from '../domain/billing.js';
import { PLAN_LIMITS } from '../domain/plans.js';
import { checkExpiresOn, checkMonthlyCap, KEY_ENDPOINTS, parseAllowedEndpoints, parseAllowedIps } from '../key-restrictions.js';
import { builder } from './builder.js';

export const KeyRestrictionsInput = builder.inputType('KeyRestrictionsInput', {
  description: "A key's restrictions. A field left out keeps what the key has; null removes that restriction.",
  fields: (t) => ({
    allowedIps: t.field({ type: ['Text'], description: 'At most 20 CIDR ranges, IPv4 or IPv6, the key may be used from (a bare address is that one address)' }),
    allowedEndpoints: t.field({ type: ['Text'], description: `The endpoints the key may call: a non-empty subset of ${KEY_ENDPOINTS.join(', ')}` }),
    expiresOn: t.field({ type: 'LocalDate', description: 'From 00:00 UTC this day the key is refused; today (UTC) or later' }),
    monthlyCap: t.int({ description: "At most this many of the account's units each billing period go to this key; at most the plan's quota" }),
  }),
});

export type RestrictionsChange = {
  allowedIps?: string[] | null | undefined;
  allowedEndpoints?: string[] | null | undefined;
  expiresOn?: string | null | undefined;
  monthlyCap?: number | null | undefined;
};

export const UNRESTRICTED: StoredRestrictions = { allowed_ips: null, allowed_endpoints: null, expires_on: null, monthly_cap: null };

/** The restrictions after a change, each one checked as it is set; throws 400 naming the field. */
export function restrictionsAfter(
  current: StoredRestrictions,
  change: RestrictionsChange | null | undefined,
  clear: boolean,
  account: Pick<Account, 'plan'>,
  now: Date,
): StoredRestrictions {
  const { allowed_ips, allowed_endpoints, expires_on, monthly_cap } = clear ? UNRESTRICTED : current;
  const base = { allowed_ips, allowed_endpoints, expires_on, monthly_cap };
  if (!change) return base;
  const plan = PLAN_LIMITS[account.plan];
  const set = <In, Out>(value: In | null | undefined, kept: Out | null, check: (v: In) => Out): Out | null =>
    value === undefined ? kept : value === null ? null : check(value);
  return {
    allowed_ips: set(change.allowedIps, base.allowed_ips, parseAllowedIps),
    allowed_endpoints: set(change.allowedEndpoints, base.allowed_endpoints, parseAllowedEndpoints),
    expires_on: set(change.expiresOn, base.expires_on, (date) => checkExpiresOn(date, now)),
    monthly_cap: set(change.monthlyCap, base.monthly_cap, (cap) => checkMonthlyCap(cap, { limit: plan.monthlyRequests, planName: plan.name })),
  };
}

/** A capped key's units this period (Free: of its one-time allowance), as its next request would count them. */
export function capUsedOf(key: ApiKey, account: Pick<Account, 'plan' | 'billing_day'>, now: Date): number | null {
  if (key.monthly_cap === null) return null;
  if (!PLAN_LIMITS[account.plan].resets) return key.cap_free_used;
  const period = billingPeriod(account.billing_day, now);
  return key.cap_period !== null && key.cap_period >= period.start ? key.cap_used : 0;
}

export interface RestrictionsView {
  key: ApiKey;
  account: Pick<Account, 'plan' | 'billing_day'> | null;
}

export const KeyRestrictionsRef = builder.objectRef<RestrictionsView>('KeyRestrictions').implement({
  description: "A key's restrictions; null fields are not restricted.",
  fields: (t) => ({
    allowedIps: t.stringList({ nullable: true, resolve: ({ key }) => key.allowed_ips }),
    allowedEndpoints: t.stringList({ nullable: true, resolve: ({ key }) => key.allowed_endpoints }),
    expiresOn: t.field({ type: 'LocalDate', nullable: true, resolve: ({ key }) => key.expires_on }),
    monthlyCap: t.int({ nullable: true, resolve: ({ key }) => key.monthly_cap }),
    capUsed: t.int({
      nullable: true,
      description: "A capped key's units this billing period (on Free, of the one-time allowance); null without a cap",
      resolve: ({ key, account }, _args, ctx) => (account ? capUsedOf(key, account, ctx.services.clock()) : null),
    }),
  }),
});
