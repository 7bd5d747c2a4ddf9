// Two service processes on one Postgres database store the same publication at the same moment:
// each alert it fires is recorded once, with one e-mail and one delivery per subscription, whichever
// process stored it first.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, sydneyDate } from '../../src/domain/calendar.js';
import { graphql } from '../../src/graphql.js';
import { accountWithKeyVia, createCliStore, startService, type CliStore, type RunningService } from '../support/cli.js';

const IMPORT = graphql('mutation($input: ImportRatesInput!) { importRates(input: $input) { published deliveries } }');
const ALERTS = 8;

describe.skipIf(!process.env.DATABASE_URL)('alerts with two service processes sharing one Postgres', () => {
  let store: CliStore;
  let services: RunningService[] = [];
  const dirs: string[] = [];

  beforeAll(async () => {
    store = await createCliStore();
    const env = { ...store.env, WEBHOOK_KEY: randomBytes(32).toString('base64url'), WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', SCHEDULER: 'off' };
    services = await Promise.all(
      [0, 1].map(() => {
        const dataDir = mkdtempSync(join(tmpdir(), 'aud-rates-mp-alerts-'));
        dirs.push(dataDir);
        return startService({ ...env, DATA_DIR: dataDir });
      }),
    );
  }, 120_000);

  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop()));
    await store?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('one firing per alert when both import the publication at once', async () => {
    const today = sydneyDate(new Date());
    const yesterday = addDays(today, -1);
    const day = (date: string, usd: string) => ({ date, rates: [{ code: 'USD' as const, value: usd }] });
    const input = (date: string, usd: string) => ({
      input: { source: 'multiprocess test', format: 'csv' as const, publicationDate: date, days: [day(date, usd)] },
    });
    await services[0]!.operator(IMPORT, input(yesterday, '0.6400'));

    const { key } = await accountWithKeyVia(services[0]!, 'alerts-mp@example.test', 'business');
    for (let n = 0; n < ALERTS; n++) {
      const response = await fetch(`${services[n % 2]!.publicUrl}/api/alerts`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ currency: 'USD', condition: 'above', value: `0.65${n}`, channels: ['email'] }),
      });
      expect(response.status, await response.clone().text()).toBe(200);
    }

    // the same publication through both processes at once: one of them stores it
    const results = await Promise.all(services.map((s) => s.operator(IMPORT, input(today, '0.6600'))));
    expect(results.map((r) => r.importRates.published ?? 'none').sort()).toEqual([today, 'none']);

    const counts = await store.withDb(async (db) => {
      const firings = await db.selectFrom('alert_firings').select(['alert_id', 'rate_date']).execute();
      const emails = await db.selectFrom('alert_emails').select('firing_id').execute();
      return { firings, emails };
    });
    expect(counts.firings).toHaveLength(ALERTS);
    expect(new Set(counts.firings.map((f) => f.alert_id)).size).toBe(ALERTS);
    expect(counts.emails).toHaveLength(ALERTS);

    // each e-mail is sent once, by whichever process claims it
    const deadline = Date.now() + 20_000;
    let sent: { firing_id: number; attempts: number }[] = [];
    while (Date.now() < deadline) {
      sent = await store.withDb((db) => db.selectFrom('alert_emails').select(['firing_id', 'attempts']).where('state', '=', 'sent').execute());
      if (sent.length === ALERTS) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(sent).toHaveLength(ALERTS);
    expect(sent.every((s) => s.attempts === 1)).toBe(true);
  }, 60_000);
});
