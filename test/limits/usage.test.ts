// Usage analytics: every keyed request to a data endpoint is counted in memory by day, account,
// key, endpoint (the route's name) and status, and `usage.flush()` adds the counts to `usage_daily`.
// (The recorder also flushes on its own every 5 s of real time; flushes add up, so the totals
// asserted here do not depend on when that happens.)
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { syntheticTable } from '../support/rates.js';
import { BILLING_DAY, NOW, PERIOD, account, anotherKey } from './support.js';
import { appForFile } from '../support/app.js';

const t = appForFile({ now: NOW }, syntheticTable('2026-05-04', '2026-05-11'));

interface Row {
  day: string;
  account: string;
  key: string;
  endpoint: string;
  status: number;
  requests: number;
}

async function ids(email: string) {
  const rows = await t.db
    .selectFrom('api_keys')
    .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
    .select(['accounts.id as accountId', 'api_keys.id as keyId', 'api_keys.prefix as prefix'])
    .where('accounts.email', '=', email)
    .execute();
  return { accountId: rows[0]!.accountId, keyOf: (key: string) => rows.find((r) => r.prefix === key.split('_')[0])!.keyId };
}

async function usageOf(accountIds: string[]): Promise<Row[]> {
  const rows = await t.db
    .selectFrom('usage_daily')
    .select([sql<string>`day::text`.as('day'), 'account_id', 'key_id', 'endpoint', 'status', 'requests'])
    .where('account_id', 'in', accountIds)
    .execute();
  return rows
    .map((r) => ({ day: r.day, account: r.account_id, key: r.key_id, endpoint: r.endpoint, status: Number(r.status), requests: Number(r.requests) }))
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

const sorted = (rows: Row[]) => [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

describe('usage_daily', () => {
  it('holds one row per day, account, key, endpoint and status with exact counts', async () => {
    const a = await account(t, 'professional', { billingDay: BILLING_DAY });
    const a2 = await anotherKey(t, a.email);
    const b = await account(t, 'starter', { billingDay: BILLING_DAY, used: 4_999, period: PERIOD });
    const A = await ids(a.email);
    const B = await ids(b.email);
    const status = async (path: string, key: string, method = 'GET', headers: Record<string, string> = {}) =>
      (await t.request(path, { key, method, headers })).status;

    // account A, first key
    for (let i = 0; i < 3; i++) expect(await status('/latest', a.key)).toBe(200);
    expect(await status('/latest', a.key, 'HEAD')).toBe(200);
    expect(await status('/2026-05-10', a.key)).toBe(404);
    expect(await status('/latest?symbols=XYZ', a.key)).toBe(400);
    expect(await status('/timeseries?start_date=2026-01-01&end_date=2026-05-01', a.key)).toBe(403);
    const etag = (await t.request('/latest/USD', { key: a.key })).headers.get('etag')!;
    expect(await status('/latest/USD', a.key, 'GET', { 'If-None-Match': etag })).toBe(304);
    // account A, second key
    expect(await status('/2026-05-11/USD', a2)).toBe(200);
    expect(await status('/2026-05-11/USD', a2)).toBe(200);
    expect(await status('/convert?from=USD&to=EUR&amount=5', a2)).toBe(200);
    expect(await status('/timeseries?start_date=2026-05-04&end_date=2026-05-08', a2)).toBe(200);
    // account B: its last unit, then two 429s
    expect(await status('/latest', b.key)).toBe(200);
    expect(await status('/latest', b.key)).toBe(429);
    expect(await status('/convert?from=USD&to=EUR&amount=5', b.key)).toBe(429);
    // not counted: unlimited endpoints, OPTIONS, 405, requests without a (valid) key
    expect(await status('/symbols', a.key)).toBe(200);
    expect(await status('/status', a.key)).toBe(200);
    expect(await status('/', b.key)).toBe(200);
    expect(await status('/latest', a.key, 'OPTIONS')).toBe(204);
    expect(await status('/latest', a.key, 'POST')).toBe(405);
    expect(await status('/convert?from=USD&to=EUR&amount=5', '')).toBe(200);
    expect(await status('/latest', 'nosuchsuburb_' + 'x'.repeat(56))).toBe(401);

    await t.app.usage.flush();

    const day = '2026-05-12';
    const expected: Row[] = [
      { day, account: A.accountId, key: A.keyOf(a.key), endpoint: 'Latest', status: 200, requests: 4 },
      { day, account: A.accountId, key: A.keyOf(a.key), endpoint: 'RateDay', status: 404, requests: 1 },
      { day, account: A.accountId, key: A.keyOf(a.key), endpoint: 'Latest', status: 400, requests: 1 },
      { day, account: A.accountId, key: A.keyOf(a.key), endpoint: 'TimeSeries', status: 403, requests: 1 },
      { day, account: A.accountId, key: A.keyOf(a.key), endpoint: 'LatestCurrency', status: 200, requests: 1 },
      { day, account: A.accountId, key: A.keyOf(a.key), endpoint: 'LatestCurrency', status: 304, requests: 1 },
      { day, account: A.accountId, key: A.keyOf(a2), endpoint: 'RateDayCurrency', status: 200, requests: 2 },
      { day, account: A.accountId, key: A.keyOf(a2), endpoint: 'Convert', status: 200, requests: 1 },
      { day, account: A.accountId, key: A.keyOf(a2), endpoint: 'TimeSeries', status: 200, requests: 1 },
      { day, account: B.accountId, key: B.keyOf(b.key), endpoint: 'Latest', status: 200, requests: 1 },
      { day, account: B.accountId, key: B.keyOf(b.key), endpoint: 'Latest', status: 429, requests: 1 },
      { day, account: B.accountId, key: B.keyOf(b.key), endpoint: 'Convert', status: 429, requests: 1 },
    ];
    expect(await usageOf([A.accountId, B.accountId])).toEqual(sorted(expected));

    // A second flush adds to the same rows; a new day gets rows of its own.
    expect(await status('/latest', a.key)).toBe(200);
    expect(await status('/latest', b.key)).toBe(429);
    t.setNow('2026-05-13T01:00:00Z');
    expect(await status('/latest', a.key)).toBe(200);
    await t.app.usage.flush();
    await t.app.usage.flush(); // nothing new: changes nothing
    const after = sorted(
      expected
        .map((r) =>
          r.key === A.keyOf(a.key) && r.endpoint === 'Latest' && r.status === 200
            ? { ...r, requests: 5 }
            : r.account === B.accountId && r.endpoint === 'Latest' && r.status === 429
              ? { ...r, requests: 2 }
              : r,
        )
        .concat([{ day: '2026-05-13', account: A.accountId, key: A.keyOf(a.key), endpoint: 'Latest', status: 200, requests: 1 }]),
    );
    expect(await usageOf([A.accountId, B.accountId])).toEqual(after);
    t.setNow(NOW);
  });
});
