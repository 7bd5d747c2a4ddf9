// A publication found by the scheduler's own poll fires alerts like any other: the RBA's feed (a
// loopback stand-in) brings 12 May 2026 over a store holding 11 May, and the alert on USD crossing
// 0.702 (0.7013 → 0.7031) fires once and is e-mailed once; the one above 0.704 stays quiet.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLeaderLock } from '../../src/db/leader-lock.js';
import { PUBLICATION_SCHEDULE, startRbaScheduler } from '../../src/jobs/rba-scheduler.js';
import { createAlert, firings } from '../support/alerts.js';
import { startDashboardApp, type DashboardApp } from '../support/dashboard.js';
import { fixture, startRbaServer, type RbaServer } from '../jobs/rba-server.js';

const TUESDAY_16H05 = '2026-05-12T06:05:00Z';

describe("alerts through the scheduler's poll", () => {
  let server: RbaServer;
  let t: DashboardApp;
  beforeAll(async () => {
    server = await startRbaServer();
    server.route('/rss.xml', () => fixture('rss-cb-exchange-rates-2026-05-12.xml'));
    t = await startDashboardApp({ now: TUESDAY_16H05, config: { RBA_RSS_URL: server.url('/rss.xml'), RBA_CSV_URL: server.url('/f11.1-data.csv') } });
    await t.importFixture('f11.1-data.csv');
  });
  afterAll(async () => {
    await t?.close();
    await server?.close();
  });

  it('fires the alert the new day crosses, once, and e-mails it once', async () => {
    const key = await t.createKey('starter', 'poll@example.test');
    const crossing = await createAlert(t, key, { currency: 'USD', condition: 'above', value: '0.702', channels: ['email'] });
    await createAlert(t, key, { currency: 'USD', condition: 'above', value: '0.704', channels: ['email'] });
    const scheduler = startRbaScheduler({
      services: t.app.services,
      leader: openLeaderLock({ kind: 'pglite' }, 'rba-scheduler'),
      logger: { debug: () => {}, info: () => {}, warn: () => {} },
      schedule: { ...PUBLICATION_SCHEDULE, backoff: { initialMs: 20, maxMs: 80 } },
    });
    try {
      expect(await scheduler.runCatchUp()).toMatchObject({ status: 'stored', newestDate: '2026-05-12' });
      expect(await scheduler.runCatchUp()).toMatchObject({ status: 'current' });
    } finally {
      await scheduler.stop();
    }
    expect(await firings(t)).toEqual([{ alert_id: crossing, rate_date: '2026-05-12', value: '0.7031', previous_value: '0.7013', previous_date: '2026-05-11' }]);
    expect(await t.app.alertMail.runDue()).toBe(1);
    const mail = await t.mailbox.next();
    expect(mail.to).toEqual(['poll@example.test']);
    expect(mail.raw).toContain('Rate alert: USD at 0.7031 on 2026-05-12');
    expect(await t.app.alertMail.runDue()).toBe(0);
  });
});
