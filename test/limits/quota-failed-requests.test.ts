// D17 (docs/decisions.md) counts successful keyed requests only. The unit is granted last, once the
// answer is ready (D11 puts 429 last), so a request whose execution fails takes no unit: there is
// none to give back.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { expectError } from '../support/expect.js';
import { syntheticTable } from '../support/rates.js';
import { BILLING_DAY, NOW, PERIOD, RESET, account, expectMonthly, stored } from './support.js';
import { appForFile } from '../support/app.js';

const t = appForFile({ now: NOW }, syntheticTable('2026-05-04', '2026-05-11'));

describe('a keyed request that fails', () => {
  it('with a 5xx (the store refuses the read) takes no unit; the next success takes one', async () => {
    const { email, key } = await account(t, 'professional', { billingDay: BILLING_DAY, used: 10, period: PERIOD });
    const path = '/timeseries?start_date=2026-05-05&end_date=2026-05-07&symbols=USD';
    // A read the store cannot answer: the rates table is briefly out of reach.
    await sql`alter table rates rename to rates_out_of_reach`.execute(t.db);
    try {
      t.app.services.rateHistory.invalidate();
      const failed = await t.json(path, { key });
      expectError(failed, 503, 'service_unavailable');
    } finally {
      await sql`alter table rates_out_of_reach rename to rates`.execute(t.db);
    }
    expect((await stored(t, email)).used).toBe(10);
    const ok = await t.request(path, { key });
    expect(ok.status).toBe(200);
    expectMonthly(ok.headers, 50_000, 50_000 - 11, RESET);
    expect((await stored(t, email)).used).toBe(11);
  });

  it('with a 4xx takes no unit', async () => {
    const { email, key } = await account(t, 'professional', { billingDay: BILLING_DAY, used: 10, period: PERIOD });
    expectError(await t.json('/timeseries?start_date=2026-05-07&end_date=2026-05-05', { key }), 400, 'bad_request');
    expectError(await t.json('/2026-05-09', { key }), 404, 'not_found');
    expect((await stored(t, email)).used).toBe(10);
  });

  it('whose grant itself fails takes no unit, and leaves no connection inside the failed grant', async () => {
    const { email, key } = await account(t, 'professional', { billingDay: BILLING_DAY, used: 10, period: PERIOD });
    // The grant's function is briefly out of reach. On Postgres the grant opens a transaction of its
    // own: a connection given back inside it would fail whatever statement came next on it.
    await sql`alter function grant_units rename to grant_units_out_of_reach`.execute(t.db);
    try {
      expectError(await t.json('/latest?symbols=USD', { key }), 503, 'service_unavailable');
    } finally {
      await sql`alter function grant_units_out_of_reach rename to grant_units`.execute(t.db);
    }
    expect((await stored(t, email)).used).toBe(10);
    for (let i = 1; i <= 12; i++) expect((await t.request('/latest?symbols=USD', { key })).status).toBe(200);
    expect((await stored(t, email)).used).toBe(22);
  });
});
