// D17 (docs/decisions.md): an account's quota resets on its billing day at 00:00 UTC, and the
// billing day is the day of the month, in UTC, on which the account was created. The sign-up
// instant is the service's clock, as every other instant the service stamps: here 23:30 UTC on
// 12 May, already 13 May in Sydney, while the database's own clock says the real time of the run.
import { afterAll, describe, expect, it } from 'vitest';
import { startDashboardApp, signedInBrowser, type DashboardApp } from '../support/dashboard.js';
import { syntheticTable } from '../support/rates.js';
import { expectMonthly } from './support.js';

const SIGN_UP = '2026-05-12T23:30:00.000Z';

let t: DashboardApp | undefined;
afterAll(() => t?.close());

async function stamped(app: DashboardApp, email: string) {
  const row = await app.db.selectFrom('accounts').select(['billing_day', 'created_at']).where('email', '=', email).executeTakeFirstOrThrow();
  return { billingDay: Number(row.billing_day), createdAt: row.created_at.toISOString() };
}

describe("an account's billing day and sign-up instant", () => {
  it("come from the service's clock in UTC, for an operator's account and for a dashboard sign-up", async () => {
    t = await startDashboardApp({ now: SIGN_UP });
    await t.importTable(syntheticTable('2026-05-04', '2026-05-12'));

    const email = `billing-day-${process.pid}@example.test`;
    const key = await t.createKey('professional', email);
    expect(await stamped(t, email)).toEqual({ billingDay: 12, createdAt: SIGN_UP });
    // the first period runs from the sign-up day to the same day of the next month, 00:00 UTC
    const res = await t.request('/latest', { key });
    expect(res.status).toBe(200);
    expectMonthly(res.headers, 50_000, 49_999, '2026-06-12T00:00:00.000Z');

    // the dashboard's first sign-in of an address creates its Free account
    const signedUp = `billing-day-dashboard-${process.pid}@example.test`;
    await signedInBrowser(t, signedUp);
    expect(await stamped(t, signedUp)).toEqual({ billingDay: 12, createdAt: SIGN_UP });
  });
});
