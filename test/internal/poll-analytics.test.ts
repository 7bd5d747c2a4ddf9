// `rbaPolls` answers exactly what the scheduler's polls did against a loopback stand-in for the RBA:
// a failed read (500), a feed without the day, then the day stored; newest first, filtered by
// outcome, paged across page boundaries; polls past the 90 days are pruned as new ones are recorded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLeaderLock } from '../../src/db/leader-lock.js';
import { PUBLICATION_SCHEDULE, startRbaScheduler, type FollowOutcome } from '../../src/jobs/rba-scheduler.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { failure, fixture, startRbaServer, type RbaServer } from '../jobs/rba-server.js';

const TUESDAY_16H05 = Date.parse('2026-05-12T06:05:00Z'); // Tuesday 12 May 2026, 16:05 Sydney
const minutes = (n: number) => new Date(TUESDAY_16H05 + n * 60_000).toISOString();
const quiet = { debug: () => {}, info: () => {}, warn: () => {} };

let server: RbaServer;
let t: TestApp;
let feedUrl: string;
let outcome: FollowOutcome;

beforeAll(async () => {
  server = await startRbaServer();
  feedUrl = server.url('/polls/rss.xml');
  // each read moves the app's clock on two minutes, so every poll has its own time and duration
  server.route('/polls/rss.xml', (count) => {
    t.setNow(minutes(2 * (count + 1)));
    return count === 0 ? failure(500) : fixture(count === 1 ? 'rss-cb-exchange-rates.xml' : 'rss-cb-exchange-rates-2026-05-12.xml');
  });
  server.route('/polls/f11.1-data.csv', () => fixture('f11.1-data.csv'));
  t = await startTestApp({ now: minutes(0), config: { RBA_RSS_URL: feedUrl, RBA_CSV_URL: server.url('/polls/f11.1-data.csv') } });
  await t.importFixture('f11.1-data.csv');
  // one poll past the retention, one within it
  await t.db
    .insertInto('rba_polls')
    .values([
      {
        polled_at: new Date('2026-01-05T05:00:00Z'),
        duration_ms: 5,
        reason: 'slot',
        expected_date: '2026-01-05',
        outcome: 'stored',
        sources: ['old'],
        days_stored: 1,
        days_updated: 0,
        newest_date: '2026-01-05',
        error: null,
      },
      {
        polled_at: new Date('2026-05-01T06:00:00Z'),
        duration_ms: 5,
        reason: 'slot',
        expected_date: '2026-05-01',
        outcome: 'stored',
        sources: ['recent'],
        days_stored: 1,
        days_updated: 0,
        newest_date: '2026-05-01',
        error: null,
      },
    ])
    .execute();
  const scheduler = startRbaScheduler({
    services: t.app.services,
    leader: openLeaderLock({ kind: 'pglite' }, 'rba-scheduler'),
    logger: quiet,
    schedule: { ...PUBLICATION_SCHEDULE, backoff: { initialMs: 20, maxMs: 80 } },
  });
  try {
    outcome = await scheduler.runCatchUp();
  } finally {
    await scheduler.stop();
  }
}, 120_000);
afterAll(async () => {
  await t?.close();
  await server?.close();
});

const polls = async (args: string, selection = 'polledAt durationMs reason expectedDate outcome sources daysStored daysUpdated newestDate error') => {
  const result = await t.operatorText(`{ rbaPolls(${args}) { edges { node { ${selection} } } pageInfo { hasNextPage endCursor } } }`);
  if (result.errors) throw new Error(JSON.stringify(result.errors));
  return result.data.rbaPolls;
};

describe('rbaPolls', () => {
  it('records each poll and its outcome, newest first', async () => {
    expect(outcome).toMatchObject({ status: 'stored', attempts: 3, newestDate: '2026-05-12' });
    const stored = outcome.polls.at(-1)!;
    expect(stored.inserted).toBe(1);
    const { edges } = await polls('from: "2026-05-12", to: "2026-05-12"');
    const nodes = edges.map((e: { node: { error: string | null } }) => e.node);
    expect(nodes).toEqual([
      {
        polledAt: minutes(4),
        durationMs: 120_000,
        reason: 'catch-up',
        expectedDate: '2026-05-12',
        outcome: 'STORED',
        sources: [feedUrl],
        daysStored: 1,
        daysUpdated: stored.updated,
        newestDate: '2026-05-12',
        error: null,
      },
      {
        polledAt: minutes(2),
        durationMs: 120_000,
        reason: 'catch-up',
        expectedDate: '2026-05-12',
        outcome: 'NOT_PUBLISHED',
        sources: [feedUrl],
        daysStored: 0,
        daysUpdated: 0,
        newestDate: '2026-05-11',
        error: null,
      },
      {
        polledAt: minutes(0),
        durationMs: 120_000,
        reason: 'catch-up',
        expectedDate: '2026-05-12',
        outcome: 'FAILED',
        sources: [feedUrl],
        daysStored: 0,
        daysUpdated: 0,
        newestDate: null,
        error: expect.stringContaining(`Cannot read ${feedUrl}`),
      },
    ]);
    expect(nodes[2].error).toContain('500');
  });

  it('filters by outcome and by Sydney date', async () => {
    expect((await polls('from: "2026-05-12", to: "2026-05-12", outcome: FAILED', 'outcome')).edges).toEqual([{ node: { outcome: 'FAILED' } }]);
    // 2026-05-01 06:00 UTC is 16:00 on the 1st in Sydney
    expect((await polls('from: "2026-04-01", to: "2026-05-11"', 'sources expectedDate')).edges).toEqual([
      { node: { sources: ['recent'], expectedDate: '2026-05-01' } },
    ]);
  });

  it('prunes the polls older than 90 days as it records new ones', async () => {
    expect((await polls('from: "2026-01-01", to: "2026-01-31"', 'sources')).edges).toEqual([]);
    const left = await t.db.selectFrom('rba_polls').select('expected_date').orderBy('polled_at').execute();
    expect(left.map((r) => r.expected_date)).toEqual(['2026-05-01', '2026-05-12', '2026-05-12', '2026-05-12']);
  });

  it('pages across page boundaries, every poll once', async () => {
    const all = (await polls('from: "2026-04-01", to: "2026-05-31"', 'polledAt outcome')).edges;
    expect(all).toHaveLength(4);
    const first = await polls('from: "2026-04-01", to: "2026-05-31", first: 3', 'polledAt outcome');
    expect(first.pageInfo.hasNextPage).toBe(true);
    const second = await polls(`from: "2026-04-01", to: "2026-05-31", first: 3, after: "${first.pageInfo.endCursor}"`, 'polledAt outcome');
    expect(second.pageInfo.hasNextPage).toBe(false);
    expect([...first.edges, ...second.edges]).toEqual(all);
  });

  it('refuses a reversed range and a page past the maximum', async () => {
    const reversed = await t.operatorText('{ rbaPolls(from: "2026-05-31", to: "2026-05-01") { edges { cursor } } }');
    expect(reversed.errors?.[0]).toMatchObject({ message: 'to (2026-05-01) must not be before from (2026-05-31)', extensions: { code: 'bad_request' } });
    const tooBig = await t.operatorText('{ rbaPolls(from: "2026-05-01", to: "2026-05-31", first: 501) { edges { cursor } } }');
    expect(tooBig.errors?.[0]).toMatchObject({ extensions: { code: 'bad_request' } });
  });
});
