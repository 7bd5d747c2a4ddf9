// Two service processes, each with its delivery worker and scheduler, on one Postgres database:
// one of them follows the RBA, and one publication gives exactly one signed delivery per
// subscription, whichever process sends it.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sydneyDate } from '../../src/domain/calendar.js';
import { RBA_LEADER_LOCK } from '../../src/jobs/rba-scheduler.js';
import { accountWithKeyVia, createCliStore, fixturePath, importFixtureVia, startService, type CliStore, type RunningService } from '../support/cli.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { graphql } from '../../src/graphql.js';

const SUBSCRIPTIONS = 6;

describe.skipIf(!process.env.DATABASE_URL)('webhooks with two service processes sharing one Postgres', () => {
  let store: CliStore;
  let receiver: WebhookReceiver;
  let services: RunningService[] = [];
  const dirs: string[] = [];

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    store = await createCliStore();
    const shared = mkdtempSync(join(tmpdir(), 'aud-rates-mp-hooks-'));
    dirs.push(shared);
    const caFile = join(shared, 'receiver-ca.pem');
    writeFileSync(caFile, receiver.ca);
    const env = {
      ...store.env,
      // one key for every process, as a deployment sharing a database must configure
      WEBHOOK_KEY: randomBytes(32).toString('base64url'),
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      NODE_EXTRA_CA_CERTS: caFile,
      // the schedulers poll local copies, never the network
      RBA_RSS_URL: fixturePath('rss-cb-exchange-rates.xml'),
      RBA_CSV_URL: fixturePath('f11.1-data.csv'),
      SCHEDULER: 'on',
    };
    services = await Promise.all(
      [0, 1].map(() => {
        const dataDir = mkdtempSync(join(tmpdir(), 'aud-rates-mp-hooks-'));
        dirs.push(dataDir);
        return startService({ ...env, DATA_DIR: dataDir });
      }),
    );
    await importFixtureVia(services[0]!, 'f11.1-data.csv');
  }, 120_000);

  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop()));
    await store?.close();
    await receiver?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('each process says at start-up that private targets are allowed (D34)', () => {
    for (const service of services) expect(service.output()).toContain('WEBHOOK_ALLOW_PRIVATE_TARGETS is on');
  });

  it('exactly one of the two processes holds the scheduler lock', async () => {
    const held = await store.withDb(async (db) => {
      // Only this lock: an import running on the leader holds an advisory lock of its own. A
      // one-number advisory lock shows its high half as classid and its low half as objid.
      const { rows } = await sql<{ pid: number }>`
        select pid from pg_locks
        where locktype = 'advisory' and granted and objsubid = 1
          and database = (select oid from pg_database where datname = current_database())
          and (classid::int8 << 32 | objid::int8) = hashtext(${RBA_LEADER_LOCK})::int8`.execute(db);
      return rows;
    });
    expect(held).toHaveLength(1);
  });

  it('one publication: exactly one delivery per subscription, signed, across both processes', async () => {
    const { key } = await accountWithKeyVia(services[0]!, 'hooks-mp@example.test', 'enterprise');
    const ids: string[] = [];
    const secrets: string[] = [];
    for (let n = 0; n < SUBSCRIPTIONS; n++) {
      // created through either process
      const response = await fetch(`${services[n % 2]!.publicUrl}/api/webhook-subscriptions`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: receiver.url(`/mp/${n}`), currencies: ['USD', 'EUR'] }),
      });
      const body = await response.json();
      expect(response.status, JSON.stringify(body)).toBe(200);
      receiver.setSecret(`/mp/${n}`, body.signingSecret);
      secrets.push(body.signingSecret);
      ids.push(body.subscription.id);
    }

    // A day newer than anything stored (today in Sydney), stored through the second process.
    const today = sydneyDate(new Date());
    const { importRates } = await services[1]!.operator(
      graphql('mutation($input: ImportRatesInput!) { importRates(input: $input) { published deliveries } }'),
      {
        input: {
          source: 'multiprocess test',
          format: 'csv',
          publicationDate: today,
          days: [
            {
              date: today,
              rates: [
                { code: 'USD', value: '0.6512' },
                { code: 'EUR', value: '0.6020' },
                { code: 'JPY', value: '101.23' },
              ],
            },
          ],
        },
      },
    );
    expect(importRates).toEqual({ published: today, deliveries: SUBSCRIPTIONS });

    await receiver.waitFor(SUBSCRIPTIONS, 20_000);
    // Every delivery recorded once, after its answer: a delivery sent twice (two processes claiming
    // it) would have been answered and recorded twice, its attempts 2.
    await expect
      .poll(() => store.withDb((db) => db.selectFrom('webhook_deliveries').select(['state', 'attempts']).execute()), { timeout: 10_000 })
      .toEqual(Array.from({ length: SUBSCRIPTIONS }, () => ({ state: 'delivered', attempts: 1 })));
    const published = receiver.deliveries.filter((d) => d.headers['x-exchangerates-event'] === 'rates.published');
    expect(published).toHaveLength(SUBSCRIPTIONS);
    expect(new Set(published.map((d) => d.path))).toEqual(new Set(ids.map((_, n) => `/mp/${n}`)));
    expect(new Set(published.map((d) => d.headers['x-exchangerates-delivery'])).size).toBe(SUBSCRIPTIONS);
    for (const delivery of published) {
      expect(delivery.signatureValid).toBe(true);
      expect(delivery.json).toMatchObject({ event: 'rates.published', date: today, base: 'AUD', rates: { USD: 0.6512, EUR: 0.602 } });
      expect(Object.keys(delivery.json.rates)).toEqual(['USD', 'EUR']);
    }
    // the signing secrets never reach a log
    for (const service of services) for (const secret of secrets) expect(service.output()).not.toContain(secret);
  }, 60_000);
});
