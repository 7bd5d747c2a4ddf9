// The `usage` analytics query answers exactly what the test's own requests did: grouped by Sydney
// day, account, key, plan, endpoint and outcome, with totals, the busiest accounts first, over
// ranges cut into whole years, months and days for the roll-ups, and cursor pages across page
// boundaries; page size and range are refused past their limits.
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_PAGE_SIZE } from '../../src/schema/analytics-support.js';
import { syntheticTable } from '../support/rates.js';
import { appForFile } from '../support/app.js';

const t = appForFile({ now: '2026-05-11T22:00:00Z' }, syntheticTable('2026-03-02', '2026-05-11'));

let pro: string;
let starter: string;
const emails = { pro: 'usage-pro@example.test', starter: 'usage-starter@example.test' };

beforeAll(async () => {
  pro = await t.createKey('professional', emails.pro);
  starter = await t.createKey('starter', emails.starter);
  // 2026-05-11 22:00 UTC is 08:00 on Tuesday 12 May in Sydney: the day is Sydney's, not UTC's.
  for (let i = 0; i < 3; i++) expect((await t.request('/latest', { key: pro })).status).toBe(200);
  expect((await t.request('/latest/XYZ', { key: pro })).status).toBe(400);
  expect((await t.request('/convert?from=USD&to=EUR&amount=5', { key: starter })).status).toBe(200);
  // Wednesday 13 May in Sydney
  t.setNow('2026-05-13T01:00:00Z');
  expect((await t.request('/latest', { key: starter })).status).toBe(200);
  const etag = (await t.request('/latest/USD', { key: starter })).headers.get('etag')!;
  expect((await t.request('/latest/USD', { key: starter, headers: { 'If-None-Match': etag } })).status).toBe(304);
  expect((await t.request('/latest', { key: 'not-a-key' })).status).toBe(401); // no account: not counted
  await t.app.usage.flush();
});

const bySortedJson = (rows: object[]) => rows.map((r) => JSON.stringify(r)).sort();

const usage = async (args: string, selection: string) => {
  const result = await t.operatorText(`{ usage(${args}) { ${selection} } }`);
  if (result.errors) throw new Error(JSON.stringify(result.errors));
  return result.data.usage;
};

describe('usage', () => {
  it('groups by Sydney day, account, endpoint and outcome, exactly', async () => {
    const report = await usage(
      'from: "2026-05-01", to: "2026-05-31", groupBy: [DAY, ACCOUNT, ENDPOINT, OUTCOME]',
      'totalRequests groups { edges { node { day accountEmail endpoint outcome requests plan } } }',
    );
    expect(report.totalRequests).toBe(8);
    // ordered by day, then account id (random): compared as a set, with the days in order
    const nodes = report.groups.edges.map((e: { node: { day: string } }) => e.node);
    expect(nodes.map((n: { day: string }) => n.day)).toEqual(['2026-05-12', '2026-05-12', '2026-05-12', '2026-05-13', '2026-05-13', '2026-05-13']);
    expect(bySortedJson(nodes)).toEqual(
      bySortedJson([
        { day: '2026-05-12', accountEmail: emails.pro, endpoint: 'Latest', outcome: 'SUCCESS', requests: 3, plan: null },
        { day: '2026-05-12', accountEmail: emails.pro, endpoint: 'LatestCurrency', outcome: 'CLIENT_ERROR', requests: 1, plan: null },
        { day: '2026-05-12', accountEmail: emails.starter, endpoint: 'Convert', outcome: 'SUCCESS', requests: 1, plan: null },
        { day: '2026-05-13', accountEmail: emails.starter, endpoint: 'Latest', outcome: 'SUCCESS', requests: 1, plan: null },
        { day: '2026-05-13', accountEmail: emails.starter, endpoint: 'LatestCurrency', outcome: 'NOT_MODIFIED', requests: 1, plan: null },
        { day: '2026-05-13', accountEmail: emails.starter, endpoint: 'LatestCurrency', outcome: 'SUCCESS', requests: 1, plan: null },
      ]),
    );
  });

  it('by plan, week and month; the busiest account first; a range that leaves a day out', async () => {
    expect((await usage('from: "2026-05-01", to: "2026-05-31", groupBy: [PLAN]', 'groups { edges { node { plan requests } } }')).groups.edges).toEqual([
      { node: { plan: 'professional', requests: 4 } },
      { node: { plan: 'starter', requests: 4 } },
    ]);
    expect(
      (await usage('from: "2026-05-01", to: "2026-05-31", groupBy: [WEEK, MONTH]', 'groups { edges { node { week month requests } } }')).groups.edges,
    ).toEqual([{ node: { week: '2026-05-11', month: '2026-05-01', requests: 8 } }]);
    // the busiest first: on the 12th, the professional account (4) before the starter one (1)
    const top = await usage(
      'from: "2026-05-12", to: "2026-05-12", groupBy: [ACCOUNT], orderBy: REQUESTS_DESC',
      'groups(first: 1) { edges { node { accountEmail keyPrefix requests } } pageInfo { hasNextPage } }',
    );
    expect(top.groups).toEqual({ edges: [{ node: { accountEmail: emails.pro, keyPrefix: null, requests: 4 } }], pageInfo: { hasNextPage: true } });
    // the 13th alone:
    const thirteenth = await usage('from: "2026-05-13", to: "2026-05-13", groupBy: [KEY]', 'totalRequests groups { edges { node { keyPrefix requests } } }');
    expect(thirteenth.totalRequests).toBe(3);
    expect(thirteenth.groups.edges).toEqual([{ node: { keyPrefix: starter.split('_')[0], requests: 3 } }]);
  });

  it('by account over ranges cut into whole months and the days around them, the same counts', async () => {
    const byAccount = async (from: string, to: string) =>
      (await usage(
        `from: "${from}", to: "${to}", groupBy: [ACCOUNT, MONTH], orderBy: REQUESTS_DESC`,
        'totalRequests groups { edges { node { accountEmail month requests } } }',
      )) as object;
    const may = [
      { node: { accountEmail: emails.pro, month: '2026-05-01', requests: 4 } },
      { node: { accountEmail: emails.starter, month: '2026-05-01', requests: 4 } },
    ];
    // May whole, with days of April and June around it (a tie, in the order of the random account ids)
    const whole = (await byAccount('2026-04-15', '2026-06-10')) as { totalRequests: number; groups: { edges: object[] } };
    expect(whole.totalRequests).toBe(8);
    expect(bySortedJson(whole.groups.edges)).toEqual(bySortedJson(may));
    // May so far (the clock is on the 13th): the monthly roll-up alone
    const soFar = (await byAccount('2026-05-01', '2026-05-13')) as { totalRequests: number; groups: { edges: object[] } };
    expect(soFar.totalRequests).toBe(8);
    expect(bySortedJson(soFar.groups.edges)).toEqual(bySortedJson(may));
    // the 13th onwards: days of May, then June whole
    expect(await byAccount('2026-05-13', '2026-06-30')).toEqual({
      totalRequests: 3,
      groups: { edges: [{ node: { accountEmail: emails.starter, month: '2026-05-01', requests: 3 } }] },
    });
    // up to the 12th: April whole, then days of May
    expect(await byAccount('2026-04-01', '2026-05-12')).toEqual({
      totalRequests: 5,
      groups: {
        edges: [
          { node: { accountEmail: emails.pro, month: '2026-05-01', requests: 4 } },
          { node: { accountEmail: emails.starter, month: '2026-05-01', requests: 1 } },
        ],
      },
    });
  });

  it('by account over ranges cut into whole years, months and days, the same counts', async () => {
    const byAccount = async (from: string, to: string, groupBy = 'ACCOUNT') =>
      bySortedJson(
        (await usage(`from: "${from}", to: "${to}", groupBy: [${groupBy}], orderBy: REQUESTS_DESC`, 'groups { edges { node { accountEmail plan requests } } }'))
          .groups.edges,
      );
    const both = (pro: number, starter: number, plan = false) =>
      bySortedJson([
        { node: { accountEmail: emails.pro, plan: plan ? 'professional' : null, requests: pro } },
        { node: { accountEmail: emails.starter, plan: plan ? 'starter' : null, requests: starter } },
      ]);
    // a year to today (the clock is on 13 May 2026): 2026 from the yearly roll-up, June to December
    // 2025 from the monthly one, and days of May 2025
    expect(await byAccount('2025-05-14', '2026-05-13')).toEqual(both(4, 4));
    expect(await byAccount('2025-05-14', '2026-05-13', 'ACCOUNT, PLAN')).toEqual(both(4, 4, true));
    expect(await byAccount('2025-01-01', '2026-12-31')).toEqual(both(4, 4));
    // not reaching today: January to April whole, then days of May
    expect(await byAccount('2026-01-01', '2026-05-12')).toEqual(both(4, 1));
    expect(await byAccount('2024-01-01', '2025-12-31')).toEqual([]);
  });

  it('by day or week and account, and by plan before account, the same counts', async () => {
    const groups = async (args: string) =>
      (await usage(`from: "2026-05-01", to: "2026-05-31", ${args}`, 'groups { edges { node { day week accountEmail plan requests } } }')).groups.edges.map(
        (e: { node: object }) => e.node,
      );
    const byDay = await groups('groupBy: [DAY, ACCOUNT]');
    expect(byDay.map((n: { day: string }) => n.day)).toEqual(['2026-05-12', '2026-05-12', '2026-05-13']);
    expect(bySortedJson(byDay)).toEqual(
      bySortedJson([
        { day: '2026-05-12', week: null, accountEmail: emails.pro, plan: null, requests: 4 },
        { day: '2026-05-12', week: null, accountEmail: emails.starter, plan: null, requests: 1 },
        { day: '2026-05-13', week: null, accountEmail: emails.starter, plan: null, requests: 3 },
      ]),
    );
    expect(await groups('groupBy: [WEEK, PLAN], orderBy: REQUESTS_DESC')).toEqual([
      { day: null, week: '2026-05-11', accountEmail: null, plan: 'professional', requests: 4 },
      { day: null, week: '2026-05-11', accountEmail: null, plan: 'starter', requests: 4 },
    ]);
    // ordered by plan first: the accounts' own order, whatever their ids
    expect(await groups('groupBy: [PLAN, ACCOUNT]')).toEqual([
      { day: null, week: null, accountEmail: emails.pro, plan: 'professional', requests: 4 },
      { day: null, week: null, accountEmail: emails.starter, plan: 'starter', requests: 4 },
    ]);
  });

  it('keeps the per-account roll-ups equal to the daily rows they sum', async () => {
    const { rows } = await sql<{ grain: string; differences: number }>`
      WITH sums AS (
        SELECT 'day' AS grain, day AS period, account_id, sum(requests) AS requests FROM usage_daily GROUP BY 1, 2, 3
        UNION ALL SELECT 'month', date_trunc('month', day)::date, account_id, sum(requests) FROM usage_daily GROUP BY 1, 2, 3
        UNION ALL SELECT 'year', date_trunc('year', day)::date, account_id, sum(requests) FROM usage_daily GROUP BY 1, 2, 3
      ),
      rollups AS (
        SELECT 'day' AS grain, day AS period, account_id, requests FROM usage_account_daily
        UNION ALL SELECT 'month', month, account_id, requests FROM usage_account_monthly
        UNION ALL SELECT 'year', year, account_id, requests FROM usage_account_yearly
      )
      SELECT coalesce(s.grain, r.grain) AS grain, count(*)::int AS differences
      FROM sums s FULL JOIN rollups r ON r.grain = s.grain AND r.period = s.period AND r.account_id = s.account_id
      WHERE s.requests IS DISTINCT FROM r.requests
      GROUP BY 1`.execute(t.db);
    expect(rows).toEqual([]);
    const { rows: counted } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM usage_account_daily`.execute(t.db);
    expect(counted[0]!.n).toBe(3);
  });

  it('pages with cursors across page boundaries, every group once', async () => {
    const selection = (after: string | null) =>
      `groups(first: 2${after ? `, after: "${after}"` : ''}) { edges { cursor node { day endpoint outcome requests } } pageInfo { hasNextPage endCursor } }`;
    const all = (
      await usage('from: "2026-05-01", to: "2026-05-31", groupBy: [DAY, ENDPOINT, OUTCOME]', 'groups { edges { node { day endpoint outcome requests } } }')
    ).groups.edges;
    expect(all).toHaveLength(6);
    const paged = [];
    let after: string | null = null;
    for (let page = 0; page < 5; page++) {
      const { groups } = await usage('from: "2026-05-01", to: "2026-05-31", groupBy: [DAY, ENDPOINT, OUTCOME]', selection(after));
      paged.push(...groups.edges.map((e: { node: object }) => ({ node: e.node })));
      if (!groups.pageInfo.hasNextPage) break;
      after = groups.pageInfo.endCursor;
    }
    expect(paged).toEqual(all);
  });

  it(`refuses a page larger than ${MAX_PAGE_SIZE}, a cursor it did not give out, a reversed range and a range over three years`, async () => {
    // a page size in a variable escapes the cost limit's multiplier; the page limit still holds
    const tooBig = await t.operatorText('query($n: Int) { usage(from: "2026-05-01", to: "2026-05-31") { groups(first: $n) { edges { cursor } } } }', {
      n: MAX_PAGE_SIZE + 1,
    });
    expect(tooBig.errors).toEqual([
      expect.objectContaining({
        message: `first must be between 0 and ${MAX_PAGE_SIZE} (got ${MAX_PAGE_SIZE + 1}); page on with the cursor`,
        extensions: { code: 'bad_request' },
      }),
    ]);
    const forged = await t.operatorText('{ usage(from: "2026-05-01", to: "2026-05-31") { groups(after: "x\\u0000y") { edges { cursor } } } }');
    expect(forged.errors?.[0]).toMatchObject({ message: 'after is not a cursor this service gave out', extensions: { code: 'bad_request' } });
    const reversed = await t.operatorText('{ usage(from: "2026-05-31", to: "2026-05-01") { totalRequests } }');
    expect(reversed.errors?.[0]).toMatchObject({ message: 'to (2026-05-01) must not be before from (2026-05-31)', extensions: { code: 'bad_request' } });
    const long = await t.operatorText('{ usage(from: "2020-01-01", to: "2026-05-01") { totalRequests } }');
    expect(long.errors?.[0]).toMatchObject({ extensions: { code: 'bad_request' } });
  });

  it('is not on the public side: a key holder cannot reach it', async () => {
    // the REST facade runs only its own documents; the schema refuses a non-operator context
    const { createContext } = await import('../../src/schema/context.js');
    const { execute, parse } = await import('graphql');
    const { schema } = await import('../../src/schema/index.js');
    const result = await execute({
      schema,
      document: parse('{ usage(from: "2026-05-01", to: "2026-05-31") { totalRequests } }'),
      contextValue: createContext(t.app.services, { kind: 'apiKey', accountId: 'a', keyId: 'k', plan: 'enterprise', billingDay: 1 }),
    });
    expect(result.errors?.[0]?.message).toBe('This operation is for the operator only');
  });
});
