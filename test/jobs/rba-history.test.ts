// History from RBA_HISTORY_URLS: at catch-up the leading process stores each listed workbook not
// yet stored, whether or not the feed and the CSV answer; it is no publication (no webhook
// deliveries); a success is recorded so the workbook is fetched once; a failure is logged and the
// next catch-up tries again. The RBA is a loopback stand-in serving a workbook in the layout of
// xls-hist/2018-2022.xls; what the tests expect is computed from the CSV the workbook was made from.
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig, SEED_HISTORY } from '../../src/config.js';
import { openLeaderLock } from '../../src/db/leader-lock.js';
import { PUBLICATION_SCHEDULE, startRbaScheduler, type RbaScheduler, type SchedulerLogger } from '../../src/jobs/rba-scheduler.js';
import { parseRbaCsv } from '../../src/rba/index.js';
import { HISTORY_DATES } from '../fixtures/rba/history-dates.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { fixturePath } from '../support/cli.js';
import { failure, fixture, startRbaServer, type Answer, type RbaServer } from './rba-server.js';

const TUESDAY_16H05 = '2026-05-12T06:05:00Z';
const WORKBOOK: Answer = { status: 200, body: readFileSync(fixturePath('f11.1-hist-2018-2022.xls')), type: 'application/vnd.ms-excel' };
const SOURCE_DAYS = parseRbaCsv(readFileSync(fixturePath('f11.1-data-excel-resaved.csv'), 'utf8')).days;

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

function recorder(): SchedulerLogger & { entries: { level: string; msg: string }[] } {
  const entries: { level: string; msg: string }[] = [];
  const log = (level: string) => (_obj: object, msg: string) => void entries.push({ level, msg });
  return { entries, debug: log('debug'), info: log('info'), warn: log('warn') };
}

/** An empty app whose feed and CSV answer as given and whose history is one workbook path. */
async function appWithHistory(
  workbook: (count: number) => Answer,
  feed: (count: number) => Answer = () => failure(503),
  catchUpOnLead = true,
  sources: (workbook: string) => string = (url) => url,
) {
  const base = `/rba${++pathCount}`;
  server.route(`${base}/rss.xml`, feed);
  server.route(`${base}/f11.1-data.csv`, () => failure(503));
  server.route(`${base}/2018-2022.xls`, workbook);
  const history = server.url(`${base}/2018-2022.xls`);
  const t = await startTestApp({
    now: TUESDAY_16H05,
    config: {
      RBA_RSS_URL: server.url(`${base}/rss.xml`),
      RBA_CSV_URL: server.url(`${base}/f11.1-data.csv`),
      RBA_HISTORY_URLS: sources(history),
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    },
  });
  apps.push(t);
  const logger = recorder();
  const scheduler = startRbaScheduler({
    services: t.app.services,
    leader: openLeaderLock({ kind: 'pglite' }, `rba-history-${pathCount}`),
    logger,
    schedule: { ...PUBLICATION_SCHEDULE, backoff: { initialMs: 20, maxMs: 40 }, windowMs: 200, catchUpOnLead },
  });
  schedulers.push(scheduler);
  return { t, scheduler, logger, history, workbookRequests: () => server.requests(`${base}/2018-2022.xls`) };
}

const count = async (t: TestApp, table: 'webhook_deliveries' | 'rates' | 'history_imports' | 'alert_firings') =>
  Number(
    (
      await t.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('history workbooks', () => {
  it('a fresh store gets 2018–2022 at catch-up while the feed and CSV fail; no publication; fetched once', async () => {
    const { t, scheduler, logger, history, workbookRequests } = await appWithHistory(() => WORKBOOK);
    const key = await t.createKey('business');
    const subscription = await t.json('/api/webhook-subscriptions', {
      key,
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: { url: 'https://127.0.0.1:9/hook' },
    });
    expect(subscription.status).toBe(200);

    // Taking the lead starts the catch-up, and the history beside it.
    await expect.poll(() => count(t, 'history_imports'), { timeout: 15_000, interval: 50 }).toBe(1);
    for (const day of SOURCE_DAYS) {
      const date = HISTORY_DATES[day.date]!;
      const res = await t.json(`/${date}`, { key });
      expect(res.status, date).toBe(200);
      expect(res.body.date).toBe(date);
      for (const [code, value] of Object.entries(day.rates)) expect(res.body.rates[code], `${date} ${code}`).toBe(Number(value));
    }
    // Old days, even on an empty store: nothing is announced to subscribers.
    expect(await count(t, 'webhook_deliveries')).toBe(0);
    expect(logger.entries).toContainEqual({ level: 'info', msg: `history: stored 7 days (2018-01-02 to 2022-12-30) from ${history}` });

    // Recorded: later catch-ups do not fetch it again.
    expect(await scheduler.runHistory()).toEqual({ stored: [], failed: [] });
    expect(workbookRequests()).toBe(1);
  });

  it('a failed fetch is logged and tried again at the next catch-up; the feed is stored meanwhile', async () => {
    const { t, scheduler, logger, history, workbookRequests } = await appWithHistory(
      (n) => (n === 0 ? failure(500) : WORKBOOK),
      () => fixture('rss-cb-exchange-rates-2026-05-12.xml'),
      false, // the test runs each catch-up itself
    );
    const key = await t.createKey('business');
    expect(await scheduler.runHistory()).toEqual({ stored: [], failed: [history] });
    expect(logger.entries.some((e) => e.level === 'warn' && e.msg === `history: ${history} not stored; it is tried again at the next catch-up`)).toBe(true);
    expect(await count(t, 'history_imports')).toBe(0);
    // Serving what is stored does not wait for the history: the feed's day is there.
    await scheduler.runCatchUp();
    expect((await t.json('/latest', { key })).body.date).toBe('2026-05-12');
    expect((await t.json('/2018-01-02', { key })).status).toBe(404);

    expect(await scheduler.runHistory()).toEqual({ stored: [history], failed: [] });
    expect((await t.json('/2018-01-02', { key })).body.rates.USD).toBe(Number(SOURCE_DAYS[0]!.rates.USD));
    // The history's days are older than the feed's: the newest day stays the feed's.
    expect((await t.json('/latest', { key })).body.date).toBe('2026-05-12');
    expect(workbookRequests()).toBe(2);
  });
});

describe('the offline seed', () => {
  it('a fresh store with no network holds the seed: 2023-01-03 to 2026-05-11, stale, announced to nobody', async () => {
    // the default list, the workbook's place unreachable as it is without a network
    const { t, scheduler } = await appWithHistory(
      () => failure(503),
      () => failure(503),
      true,
      (workbook) => `${SEED_HISTORY},${workbook}`,
    );
    const key = await t.createKey('business');
    const hooked = await t.json('/api/webhook-subscriptions', {
      key,
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: { url: 'https://127.0.0.1:9/hook' },
    });
    expect(hooked.status).toBe(200);
    const alert = await t.json('/api/alerts', {
      key,
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: { currency: 'USD', condition: 'change_pct', value: 0.000001, channels: ['email', 'webhook'] },
    });
    expect(alert.status).toBe(200);

    await expect.poll(() => count(t, 'history_imports'), { timeout: 60_000, interval: 100 }).toBe(1);
    const days = parseRbaCsv(readFileSync(new URL(SEED_HISTORY), 'utf8')).days;
    expect([days[0]!.date, days.at(-1)!.date, days.length]).toEqual(['2023-01-03', '2026-05-11', 841]);
    expect(await count(t, 'rates')).toBeGreaterThan(0);
    for (const day of [days[0]!, days[400]!, days.at(-1)!]) {
      const res = await t.json(`/${day.date}`, { key });
      expect(res.status, day.date).toBe(200);
      expect(res.body.rates.USD).toBe(Number(day.rates.USD));
    }
    t.setNow('2026-05-14T03:00:00Z'); // two publications missed: the seed's rates, marked stale
    const latest = await t.request('/latest', { key });
    expect((await latest.json()).date).toBe('2026-05-11');
    const status = await t.json('/status');
    expect(status.body.stale).toBe(true);
    expect(latest.headers.get('x-data-stale')).toBe('true');
    // history is no publication: no delivery, no alert fired
    expect(await count(t, 'webhook_deliveries')).toBe(0);
    expect(await count(t, 'alert_firings')).toBe(0);
    // the seed is recorded; the workbook is tried again at the next catch-up
    expect(await scheduler.runHistory()).toMatchObject({ stored: [] });
  });
});

describe('RBA_HISTORY_URLS', () => {
  it('defaults to the seed shipped in the repository, then the RBA workbook of 2018–2022; takes a comma-separated list; off for none', () => {
    expect(parseConfig({}).RBA_HISTORY_URLS).toEqual([SEED_HISTORY, 'https://www.rba.gov.au/statistics/tables/xls-hist/2018-2022.xls']);
    expect(SEED_HISTORY).toBe(new URL('../../seed/f11.1-data_2026-05-11.csv', import.meta.url).href);
    expect(parseConfig({ RBA_HISTORY_URLS: ' a.xls, https://x.test/b.xls ,' }).RBA_HISTORY_URLS).toEqual(['a.xls', 'https://x.test/b.xls']);
    expect(parseConfig({ RBA_HISTORY_URLS: 'off' }).RBA_HISTORY_URLS).toEqual([]);
  });
});
