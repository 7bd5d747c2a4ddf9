// `conversions` and `usage.keylessConvert` answer exactly what the test's own /convert requests
// did: pairs keyed and keyless, dated and latest, on Sydney days moved by the injected clock; keyless
// requests by outcome (the 429 of D19 in docs/decisions.md, the 401 of a keyless dated conversion,
// a 400) and no other keyless endpoint counted; cursor pages across page boundaries.
import { beforeAll, describe, expect, it } from 'vitest';
import { graphql, type ResultOf } from '../../src/graphql.js';
import { appForFile, type OperatorResult, type RequestOptions } from '../support/app.js';
import { syntheticTable } from '../support/rates.js';

// 2026-05-11 22:00 UTC is 08:00 on Tuesday 12 May in Sydney
const t = appForFile({ now: '2026-05-11T22:00:00Z' }, syntheticTable('2026-03-02', '2026-05-11'));

/** a keyless client on a TLS socket of its own (D20 met; the keyless limit counts per client) */
const client = (n: number): RequestOptions => ({ remote: { address: `203.0.113.${n}`, encrypted: true } });

async function expectStatus(path: string, options: RequestOptions, status: number): Promise<void> {
  const res = await t.request(path, options);
  expect(res.status, `${path}: ${await res.text()}`).toBe(status);
}

beforeAll(async () => {
  const key = await t.createKey('professional', 'conversions@example.test');
  // Tuesday 12 May
  await expectStatus('/convert?from=USD&to=EUR&amount=5', { key }, 200);
  await expectStatus('/convert?from=usd&to=eur&amount=7', { key }, 200); // codes read as the route reads them
  await expectStatus('/convert?from=USD&to=EUR&amount=5&date=2026-05-04', { key }, 200);
  await expectStatus('/convert?from=AUD&to=JPY&amount=1', { key }, 200);
  await expectStatus('/convert?from=USD&to=XYZ&amount=1', { key }, 400); // not a conversion
  await expectStatus('/convert?from=USD&to=EUR&amount=1', client(1), 200);
  await expectStatus('/convert?from=USD&to=EUR&amount=2', client(1), 200);
  await expectStatus('/convert?from=GBP&to=USD&amount=3', client(1), 200);
  await expectStatus('/convert?from=USD&to=EUR&amount=4', client(1), 429); // the fourth in the hour
  await expectStatus('/convert?from=USD&to=EUR&amount=4&date=2026-05-04', client(2), 401); // dated needs a key
  await expectStatus('/convert?from=USD&amount=4', client(2), 400);
  await expectStatus('/symbols', client(2), 200); // keyless, but not /convert: not counted
  // Wednesday 13 May in Sydney
  t.setNow('2026-05-13T01:00:00Z');
  await expectStatus('/convert?from=USD&to=EUR&amount=5', client(3), 200);
  await expectStatus('/convert?from=NZD&to=AUD&amount=5&date=2026-05-11', { key }, 200);
  await t.app.usage.flush();
});

function dataOf<Data>(result: OperatorResult<Data>): Data {
  if (result.errors) throw new Error(JSON.stringify(result.errors));
  return result.data!;
}

describe('conversions', () => {
  it('by Sydney day, pair, keyed and dated, exactly', async () => {
    const data = dataOf(
      await t.operator(
        graphql(`
          {
            conversions(from: "2026-05-01", to: "2026-05-31", groupBy: [DAY, PAIR, KEYED, DATED]) {
              totalConversions
              groups {
                edges {
                  node {
                    day
                    pair
                    fromCurrency
                    toCurrency
                    keyed
                    dated
                    conversions
                  }
                }
              }
            }
          }
        `),
      ),
    );
    expect(data.conversions.totalConversions).toBe(9);
    expect(data.conversions.groups.edges.map((e) => e.node)).toEqual([
      { day: '2026-05-12', pair: 'AUD/JPY', fromCurrency: 'AUD', toCurrency: 'JPY', keyed: true, dated: false, conversions: 1 },
      { day: '2026-05-12', pair: 'GBP/USD', fromCurrency: 'GBP', toCurrency: 'USD', keyed: false, dated: false, conversions: 1 },
      { day: '2026-05-12', pair: 'USD/EUR', fromCurrency: 'USD', toCurrency: 'EUR', keyed: false, dated: false, conversions: 2 },
      { day: '2026-05-12', pair: 'USD/EUR', fromCurrency: 'USD', toCurrency: 'EUR', keyed: true, dated: false, conversions: 2 },
      { day: '2026-05-12', pair: 'USD/EUR', fromCurrency: 'USD', toCurrency: 'EUR', keyed: true, dated: true, conversions: 1 },
      { day: '2026-05-13', pair: 'NZD/AUD', fromCurrency: 'NZD', toCurrency: 'AUD', keyed: true, dated: true, conversions: 1 },
      { day: '2026-05-13', pair: 'USD/EUR', fromCurrency: 'USD', toCurrency: 'EUR', keyed: false, dated: false, conversions: 1 },
    ]);
  });

  it('the most converted pairs first; historical against latest; a range that leaves a day out', async () => {
    const data = dataOf(
      await t.operator(
        graphql(`
          {
            top: conversions(from: "2026-05-01", to: "2026-05-31", groupBy: [PAIR], orderBy: REQUESTS_DESC) {
              groups(first: 2) {
                edges {
                  node {
                    pair
                    conversions
                  }
                }
                pageInfo {
                  hasNextPage
                }
              }
            }
            dated: conversions(from: "2026-05-01", to: "2026-05-31", groupBy: [DATED]) {
              groups {
                edges {
                  node {
                    dated
                    keyed
                    conversions
                  }
                }
              }
            }
            thirteenth: conversions(from: "2026-05-13", to: "2026-05-13", groupBy: [WEEK, MONTH]) {
              totalConversions
              groups {
                edges {
                  node {
                    week
                    month
                    conversions
                  }
                }
              }
            }
          }
        `),
      ),
    );
    expect(data.top.groups).toEqual({
      edges: [{ node: { pair: 'USD/EUR', conversions: 6 } }, { node: { pair: 'AUD/JPY', conversions: 1 } }],
      pageInfo: { hasNextPage: true },
    });
    expect(data.dated.groups.edges).toEqual([{ node: { dated: false, keyed: null, conversions: 7 } }, { node: { dated: true, keyed: null, conversions: 2 } }]);
    expect(data.thirteenth).toEqual({ totalConversions: 2, groups: { edges: [{ node: { week: '2026-05-11', month: '2026-05-01', conversions: 2 } }] } });
  });

  it('the same counts over ranges cut into whole months and the days around them', async () => {
    const byPair = async (from: string, to: string) =>
      dataOf(
        await t.operator(
          graphql(`
            query ($from: LocalDate!, $to: LocalDate!) {
              conversions(from: $from, to: $to, groupBy: [PAIR, KEYED, MONTH]) {
                totalConversions
                groups {
                  edges {
                    node {
                      month
                      pair
                      keyed
                      conversions
                    }
                  }
                }
              }
            }
          `),
          { from, to },
        ),
      ).conversions;
    const may = await byPair('2026-05-01', '2026-05-31'); // May whole: the monthly roll-up alone
    expect(await byPair('2026-04-20', '2026-06-30')).toEqual(may); // days of April, then May and June whole
    expect(await byPair('2026-05-12', '2026-05-31')).toEqual(may); // days alone
    expect(may.totalConversions).toBe(9);
    expect(await byPair('2026-05-13', '2026-06-30')).toEqual({
      totalConversions: 2,
      groups: {
        edges: [
          { node: { month: '2026-05-01', pair: 'NZD/AUD', keyed: true, conversions: 1 } },
          { node: { month: '2026-05-01', pair: 'USD/EUR', keyed: false, conversions: 1 } },
        ],
      },
    });
  });

  it('pages with cursors across page boundaries, every group once', async () => {
    const PAGE = graphql(`
      query ($first: Int!, $after: ID) {
        conversions(from: "2026-05-01", to: "2026-05-31", groupBy: [DAY, PAIR, KEYED, DATED]) {
          groups(first: $first, after: $after) {
            edges {
              node {
                day
                pair
                keyed
                dated
                conversions
              }
            }
            pageInfo {
              hasNextPage
              endCursor
            }
          }
        }
      }
    `);
    const all = dataOf(await t.operator(PAGE, { first: 100 })).conversions.groups.edges;
    expect(all).toHaveLength(7);
    const paged: unknown[] = [];
    let after: string | null = null;
    for (let page = 0; page < 5; page++) {
      const { groups }: ResultOf<typeof PAGE>['conversions'] = dataOf(await t.operator(PAGE, { first: 3, after })).conversions;
      paged.push(...groups.edges);
      if (!groups.pageInfo.hasNextPage) break;
      after = groups.pageInfo.endCursor;
    }
    expect(paged).toEqual(all);
  });
});

describe('keyless /convert in usage', () => {
  it('per Sydney day and outcome, with the total; none of it among the keyed groups', async () => {
    const data = dataOf(
      await t.operator(
        graphql(`
          {
            usage(from: "2026-05-01", to: "2026-05-31", groupBy: [ENDPOINT]) {
              totalRequests
              keylessConvertRequests
              keylessConvert {
                edges {
                  node {
                    day
                    outcome
                    requests
                  }
                }
              }
              groups {
                edges {
                  node {
                    endpoint
                    requests
                  }
                }
              }
            }
          }
        `),
      ),
    );
    expect(data.usage.keylessConvertRequests).toBe(7);
    expect(data.usage.keylessConvert.edges.map((e) => e.node)).toEqual([
      { day: '2026-05-12', outcome: 'CLIENT_ERROR', requests: 2 },
      { day: '2026-05-12', outcome: 'RATE_LIMITED', requests: 1 },
      { day: '2026-05-12', outcome: 'SUCCESS', requests: 3 },
      { day: '2026-05-13', outcome: 'SUCCESS', requests: 1 },
    ]);
    // the key's six requests, all /convert
    expect(data.usage.totalRequests).toBe(6);
    expect(data.usage.groups.edges).toEqual([{ node: { endpoint: 'Convert', requests: 6 } }]);
  });

  it('pages keyless days across page boundaries', async () => {
    const PAGE = graphql(`
      query ($after: ID) {
        usage(from: "2026-05-01", to: "2026-05-31") {
          keylessConvert(first: 3, after: $after) {
            edges {
              node {
                day
                outcome
              }
            }
            pageInfo {
              hasNextPage
              endCursor
            }
          }
        }
      }
    `);
    const page1 = dataOf(await t.operator(PAGE, {}));
    expect(page1.usage.keylessConvert.pageInfo.hasNextPage).toBe(true);
    const page2 = dataOf(await t.operator(PAGE, { after: page1.usage.keylessConvert.pageInfo.endCursor }));
    expect(page2.usage.keylessConvert).toEqual({
      edges: [{ node: { day: '2026-05-13', outcome: 'SUCCESS' } }],
      pageInfo: { hasNextPage: false, endCursor: expect.any(String) },
    });
  });

  it('refuses a page past the maximum and a reversed range, as every analytics query', async () => {
    const tooBig = await t.operatorText('{ usage(from: "2026-05-01", to: "2026-05-31") { keylessConvert(first: 501) { edges { cursor } } } }');
    expect(tooBig.errors?.[0]).toMatchObject({ extensions: { code: 'bad_request' } });
    const reversed = await t.operatorText('{ conversions(from: "2026-05-31", to: "2026-05-01") { totalConversions } }');
    expect(reversed.errors?.[0]).toMatchObject({ message: 'to (2026-05-01) must not be before from (2026-05-31)', extensions: { code: 'bad_request' } });
    const unknown = await t.operatorText('{ conversions(from: "2026-05-01", to: "2026-05-31", groupBy: [ACCOUNT]) { totalConversions } }');
    expect(unknown.errors?.[0]?.message).toMatch(/ACCOUNT/);
  });
});
