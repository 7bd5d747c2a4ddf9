// Who may do what is decided by the schema from an explicit viewer, whichever endpoint sent the
// operation: the operator, an API key (its account's plan), a dashboard session (its account's
// plan) or an anonymous caller. Each operation here runs against the schema itself with one kind of
// viewer, as a new endpoint or facade would run it.
import { execute, parse } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { findAccountByEmail } from '../../src/db/accounts.js';
import type { DomainError } from '../../src/errors.js';
import { ANONYMOUS, OPERATOR, createContext, type Viewer } from '../../src/schema/context.js';
import { schema } from '../../src/schema/index.js';
import { appForFile } from '../support/app.js';
import { syntheticTable } from '../support/rates.js';

// Tuesday 12 May 2026 in Sydney; Starter reaches back 30 days (to 2026-04-12).
const t = appForFile({ now: '2026-05-12T03:00:00Z' }, syntheticTable('2025-01-01', '2025-01-31'), syntheticTable('2026-04-01', '2026-05-11'));

const viewers = {} as Record<'freeKey' | 'starterKey' | 'starterSession', Viewer>;
beforeAll(async () => {
  for (const [name, plan] of [
    ['freeKey', 'free'],
    ['starterKey', 'starter'],
    ['starterSession', 'starter'],
  ] as const) {
    const email = `viewer-${name}-${process.pid}@example.test`;
    await t.createKey(plan, email);
    const account = (await findAccountByEmail(t.db, email))!;
    viewers[name] =
      name === 'starterSession'
        ? { kind: 'session', tokenHash: 'not-a-stored-session', account }
        : { kind: 'apiKey', accountId: account.id, keyId: 'not-looked-up', plan, billingDay: account.billing_day };
  }
});

/** The operation's first error code, or 'ok'. */
async function outcome(viewer: Viewer, document: string): Promise<string> {
  const result = await execute({ schema, document: parse(document), contextValue: createContext(t.app.services, viewer) });
  const error = result.errors?.[0];
  if (!error) return 'ok';
  return (error.originalError as DomainError | undefined)?.code ?? `not a domain error: ${error.message}`;
}

const RECENT_DAY = '{ rateDay(date: "2026-05-11") { date } }';
const OLD_DAY = '{ rateDay(date: "2025-01-06") { date } }';
const RECENT_SERIES = '{ timeSeries(startDate: "2026-05-04", endDate: "2026-05-08") { rates } }';
const BACKWARDS_SERIES = '{ timeSeries(startDate: "2026-05-08", endDate: "2026-05-04") { rates } }';
const DATED_CONVERSION = '{ convert(from: USD, to: EUR, amount: "10", date: "2026-05-11") { result } }';
const CONVERSION = '{ convert(from: USD, to: EUR, amount: "10") { result } }';
const LATEST = '{ latest { date } }';

describe('dated rates', () => {
  it("an anonymous viewer gets today's rates and conversions, and is refused every dated one (unauthorized)", async () => {
    expect(await outcome(ANONYMOUS, LATEST)).toBe('ok');
    expect(await outcome(ANONYMOUS, CONVERSION)).toBe('ok');
    for (const dated of [RECENT_DAY, OLD_DAY, RECENT_SERIES, DATED_CONVERSION]) expect(await outcome(ANONYMOUS, dated)).toBe('unauthorized');
  });

  it("an API key is held to its plan's windows", async () => {
    expect(await outcome(viewers.freeKey, RECENT_DAY)).toBe('plan_restricted');
    expect(await outcome(viewers.freeKey, DATED_CONVERSION)).toBe('plan_restricted');
    expect(await outcome(viewers.freeKey, RECENT_SERIES)).toBe('plan_restricted');
    expect(await outcome(viewers.starterKey, RECENT_DAY)).toBe('ok');
    expect(await outcome(viewers.starterKey, RECENT_SERIES)).toBe('ok');
    expect(await outcome(viewers.starterKey, OLD_DAY)).toBe('plan_restricted');
  });

  it("a dashboard session is held to its account's plan too", async () => {
    expect(await outcome(viewers.starterSession, RECENT_DAY)).toBe('ok');
    expect(await outcome(viewers.starterSession, OLD_DAY)).toBe('plan_restricted');
  });

  it('the operator alone is never restricted', async () => {
    for (const dated of [RECENT_DAY, OLD_DAY, RECENT_SERIES, DATED_CONVERSION]) expect(await outcome(OPERATOR, dated)).toBe('ok');
  });

  it('a range ending before it starts is bad_request for every viewer that may ask, before any plan rule', async () => {
    expect(await outcome(OPERATOR, BACKWARDS_SERIES)).toBe('bad_request');
    expect(await outcome(viewers.freeKey, BACKWARDS_SERIES)).toBe('bad_request');
    expect(await outcome(viewers.starterKey, BACKWARDS_SERIES)).toBe('bad_request');
  });
});

describe('who may call what', () => {
  const OPERATOR_ONLY = '{ accountStats { byPlanAndStatus { plan } } }';
  const ACCOUNT_ONLY = '{ webhookSubscriptions { limit } }';
  const SESSION_ONLY = '{ sessionAccount { email } }';

  it("operator operations are the operator's alone (forbidden)", async () => {
    expect(await outcome(OPERATOR, OPERATOR_ONLY)).toBe('ok');
    for (const viewer of [ANONYMOUS, viewers.starterKey, viewers.starterSession]) expect(await outcome(viewer, OPERATOR_ONLY)).toBe('forbidden');
  });

  it('webhook subscriptions need an API key or a dashboard session (docs/api.md §4.2; invalid_api_key otherwise, D12)', async () => {
    for (const viewer of [viewers.starterKey, viewers.starterSession]) expect(await outcome(viewer, ACCOUNT_ONLY)).toBe('ok');
    for (const viewer of [ANONYMOUS, OPERATOR]) expect(await outcome(viewer, ACCOUNT_ONLY)).toBe('invalid_api_key');
  });

  it("the dashboard's own account needs a session (sign_in_required otherwise)", async () => {
    expect(await outcome(viewers.starterSession, SESSION_ONLY)).toBe('ok');
    for (const viewer of [ANONYMOUS, OPERATOR, viewers.starterKey]) expect(await outcome(viewer, SESSION_ONLY)).toBe('sign_in_required');
  });
});
