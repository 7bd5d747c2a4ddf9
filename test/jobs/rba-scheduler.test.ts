// The scheduler on the real app and a loopback stand-in for the RBA: near the slot, a feed that
// first lacks and then has the day gets it stored; failures are retried, never thrown; the window
// is bounded; the croner slot job polls on business days only; only the leader polls. Waits are
// kept short by passing small backoffs.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openLeaderLock, type LeaderLock } from '../../src/db/leader-lock.js';
import { PUBLICATION_SCHEDULE, startRbaScheduler, type PollSchedule, type RbaScheduler, type SchedulerLogger } from '../../src/jobs/rba-scheduler.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { failure, fixture, startRbaServer, type RbaServer } from './rba-server.js';

const TUESDAY_16H05 = '2026-05-12T06:05:00Z'; // Tuesday 12 May 2026, 16:05 Sydney
const FAST = { initialMs: 20, maxMs: 80 };

let server: RbaServer;
let pathCount = 0;
const apps: TestApp[] = [];
const schedulers: RbaScheduler[] = [];

beforeAll(async () => {
  server = await startRbaServer();
});
afterEach(async () => {
  await Promise.all(schedulers.splice(0).map((s) => s.stop()));
});
afterAll(async () => {
  await Promise.all(apps.map((t) => t.close()));
  await server.close();
});

function recorder(): SchedulerLogger & { entries: { level: string; msg: string; obj: Record<string, unknown> }[] } {
  const entries: { level: string; msg: string; obj: Record<string, unknown> }[] = [];
  const log = (level: string) => (obj: object, msg: string) => void entries.push({ level, msg, obj: obj as Record<string, unknown> });
  return { entries, debug: log('debug'), info: log('info'), warn: log('warn') };
}

/** An app holding f11.1-data.csv (newest Monday 2026-05-11), its feed at a fresh path answering `rss`. */
async function appWithFeed(rss: (count: number) => ReturnType<typeof fixture>, now = TUESDAY_16H05) {
  const base = `/feed${++pathCount}`;
  server.route(`${base}/rss.xml`, rss);
  server.route(`${base}/f11.1-data.csv`, () => fixture('f11.1-data.csv'));
  const t = await startTestApp({ now, config: { RBA_RSS_URL: server.url(`${base}/rss.xml`), RBA_CSV_URL: server.url(`${base}/f11.1-data.csv`) } });
  apps.push(t);
  await t.importFixture('f11.1-data.csv');
  return { t, feedRequests: () => server.requests(`${base}/rss.xml`), csvRequests: () => server.requests(`${base}/f11.1-data.csv`) };
}

function start(t: TestApp, schedule: Partial<PollSchedule> = {}, leader: LeaderLock = openLeaderLock({ kind: 'pglite' }, 'rba-scheduler')) {
  const logger = recorder();
  const errors: unknown[] = [];
  const scheduler = startRbaScheduler({
    services: t.app.services,
    leader,
    logger,
    onError: (e) => errors.push(e),
    schedule: { ...PUBLICATION_SCHEDULE, backoff: FAST, ...schedule },
  });
  schedulers.push(scheduler);
  return { scheduler, logger, errors };
}

const mondayThenTuesday = (mondays: number) => (count: number) =>
  fixture(count < mondays ? 'rss-cb-exchange-rates.xml' : 'rss-cb-exchange-rates-2026-05-12.xml');

describe('polling near the slot', () => {
  it('a feed that lacks the day for three polls and then has it: the day is stored and /latest shows it', async () => {
    const { t, feedRequests, csvRequests } = await appWithFeed(mondayThenTuesday(3));
    const key = await t.createKey();
    const { scheduler, logger, errors } = start(t);
    const outcome = await scheduler.runCatchUp(); // joins the catch-up started on taking the lead
    expect(outcome).toMatchObject({ status: 'stored', expected: '2026-05-12', newestDate: '2026-05-12', attempts: 4 });
    expect(outcome.polls.map((p) => p.published)).toEqual([null, null, null, '2026-05-12']);
    expect(feedRequests()).toBe(4);
    expect(csvRequests()).toBe(0);
    expect(errors).toEqual([]);
    expect((await t.json('/latest', { key })).body.date).toBe('2026-05-12');
    expect(logger.entries.filter((e) => e.level === 'debug' && e.msg.startsWith('rba poll: day not yet published'))).toHaveLength(3);
    expect(logger.entries.some((e) => e.level === 'info' && e.msg === 'rates for 2026-05-12 stored')).toBe(true);
    // Up to date: another run polls nothing.
    expect(await scheduler.runCatchUp()).toMatchObject({ status: 'current', attempts: 0 });
    expect(feedRequests()).toBe(4);
  });

  it('from 15:55 Sydney (before the slot) polling already looks for the day', async () => {
    const { t, feedRequests } = await appWithFeed(mondayThenTuesday(1), '2026-05-12T05:56:00Z');
    const { scheduler } = start(t);
    expect(await scheduler.runCatchUp()).toMatchObject({ status: 'stored', expected: '2026-05-12', attempts: 2 });
    expect(feedRequests()).toBe(2);
  });

  it('before 15:55 with Monday stored, nothing is polled', async () => {
    const { t, feedRequests } = await appWithFeed(mondayThenTuesday(0), '2026-05-12T03:00:00Z');
    const { scheduler } = start(t);
    expect(await scheduler.runCatchUp()).toMatchObject({ status: 'current', expected: '2026-05-11', attempts: 0 });
    expect(feedRequests()).toBe(0);
  });

  it('errors (500, malformed) are retried with backoff, reported and logged, never thrown', async () => {
    const { t } = await appWithFeed((count) =>
      count === 0 ? failure(500) : count === 1 ? { status: 200, body: 'not a feed', type: 'text/plain' } : fixture('rss-cb-exchange-rates-2026-05-12.xml'),
    );
    const { scheduler, logger, errors } = start(t);
    expect(await scheduler.runCatchUp()).toMatchObject({ status: 'stored', attempts: 3 });
    expect(errors).toHaveLength(2);
    expect(String(errors[0])).toContain('500');
    expect(logger.entries.filter((e) => e.level === 'warn' && e.msg === 'rba poll failed')).toHaveLength(2);
  });

  it('gives up with a warning when the window ends (8 hours after the slot) without the day', async () => {
    let hours = 0;
    const { t, feedRequests } = await appWithFeed(() => {
      // Each poll is an hour later on the app's clock: 17:05, 18:05, … Sydney.
      t.setNow(new Date(Date.parse(TUESDAY_16H05) + ++hours * 3_600_000).toISOString());
      return fixture('rss-cb-exchange-rates.xml');
    });
    const { scheduler, logger } = start(t);
    const outcome = await scheduler.runCatchUp();
    expect(outcome).toMatchObject({ status: 'gave-up', expected: '2026-05-12', newestDate: '2026-05-11' });
    // Polling began at 16:05 (after the slot), so it ends 8 h later: the 8th poll moves the clock to 00:05.
    expect(outcome.attempts).toBe(8);
    expect(feedRequests()).toBe(8);
    const warning = logger.entries.find((e) => e.level === 'warn');
    expect(warning?.msg).toContain('gave up waiting for the rates of 2026-05-12');
  });
});

describe('the slot job (croner)', () => {
  it('on a business day it starts polling; on a Saturday it does nothing', async () => {
    const weekday = await appWithFeed(mondayThenTuesday(1));
    const saturday = await appWithFeed(mondayThenTuesday(0), '2026-05-16T06:05:00Z');
    // Fires every second instead of 15:55 on weekdays; no catch-up on taking the lead.
    const options = { slotPattern: '* * * * * *', catchUpOnLead: false };
    start(weekday.t, options);
    const idle = start(saturday.t, options);
    await expect.poll(() => weekday.feedRequests(), { timeout: 10_000, interval: 100 }).toBe(2);
    // the second poll's day is served once its import has ended, which the feed's answer precedes
    const key = await weekday.t.createKey();
    await expect.poll(async () => (await weekday.t.json('/latest', { key })).body.date, { timeout: 10_000, interval: 100 }).toBe('2026-05-12');
    // the Saturday's slot job has fired (it logs why it does not poll) and asked for nothing
    await expect.poll(() => idle.logger.entries.some((e) => e.msg.includes('weekend or NSW holiday')), { timeout: 10_000, interval: 100 }).toBe(true);
    expect(saturday.feedRequests()).toBe(0);
    // two apps, each waited for up to 10 s, on a busy machine
  }, 60_000);
});

describe('leadership', () => {
  it('a process that does not hold the lock never polls', async () => {
    const { t, feedRequests } = await appWithFeed(mondayThenTuesday(0));
    const notLeader = { tryAcquire: async () => false, isHeld: () => false, release: async () => {} };
    const { scheduler } = start(t, {}, notLeader);
    expect(await scheduler.runCatchUp()).toMatchObject({ status: 'not-leader', attempts: 0 });
    expect(feedRequests()).toBe(0);
  });

  it('losing the lock stops a polling run', async () => {
    let held = true;
    const { t, feedRequests } = await appWithFeed(() => fixture('rss-cb-exchange-rates.xml'));
    const lock = { tryAcquire: async () => held, isHeld: () => held, release: async () => void (held = false) };
    const { scheduler, logger } = start(t, { backoff: { initialMs: 200, maxMs: 200 } }, lock);
    const run = scheduler.runCatchUp();
    await expect.poll(() => feedRequests(), { timeout: 5_000, interval: 20 }).toBeGreaterThan(0);
    held = false;
    expect(await scheduler.checkLeader()).toBe(false);
    expect(await run).toMatchObject({ status: 'not-leader' });
    expect(logger.entries.some((e) => e.level === 'warn' && e.msg.startsWith('no longer leading'))).toBe(true);
  });
});

describe.skipIf(!process.env.DATABASE_URL)('two schedulers on one Postgres', () => {
  it('only the leader polls; when it stops, the other takes over and catches up', async () => {
    const name = `rba-scheduler-test-${process.pid}-${Date.now()}`;
    const server = new URL(process.env.DATABASE_URL!);
    server.pathname = '/postgres'; // advisory locks belong to a database: both use the same one
    const url = server.toString();
    const { t, feedRequests } = await appWithFeed(mondayThenTuesday(1_000_000));
    const a = start(t, { lockIntervalSeconds: 1, backoff: { initialMs: 60_000, maxMs: 60_000 } }, openLeaderLock({ kind: 'postgres', url }, name));
    const b = start(t, { lockIntervalSeconds: 1, backoff: { initialMs: 60_000, maxMs: 60_000 } }, openLeaderLock({ kind: 'postgres', url }, name));
    await expect.poll(() => feedRequests(), { timeout: 10_000, interval: 50 }).toBe(1); // one leader, one poll
    const [aLeads, bLeads] = [await a.scheduler.checkLeader(), await b.scheduler.checkLeader()];
    expect([aLeads, bLeads].filter(Boolean)).toHaveLength(1);
    const [leader] = aLeads ? [a, b] : [b, a];
    await leader.scheduler.stop(); // releases the lock
    await expect.poll(() => feedRequests(), { timeout: 10_000, interval: 50 }).toBe(2); // the other caught up
  });
});
