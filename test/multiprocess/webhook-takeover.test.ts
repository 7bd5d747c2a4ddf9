// A delivery in flight when its process dies is sent again by another process once its lease runs
// out, with the same delivery id (D28 in docs/decisions.md): a real service killed mid-attempt, a
// second one taking over.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sydneyDate } from '../../src/domain/calendar.js';
import { accountWithKeyVia, createCliStore, importFixtureVia, startService, type CliStore, type RunningService } from '../support/cli.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { graphql } from '../../src/graphql.js';

const LEASE_SECONDS = 15; // the shortest the configuration allows

describe.skipIf(!process.env.DATABASE_URL)('a service killed during a delivery', () => {
  let store: CliStore;
  let receiver: WebhookReceiver;
  const services: RunningService[] = [];
  const dirs: string[] = [];
  let env: Record<string, string>;

  const start = async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'aud-rates-takeover-'));
    dirs.push(dataDir);
    const service = await startService({ ...env, DATA_DIR: dataDir });
    services.push(service);
    return service;
  };

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    store = await createCliStore();
    const shared = mkdtempSync(join(tmpdir(), 'aud-rates-takeover-'));
    dirs.push(shared);
    writeFileSync(join(shared, 'receiver-ca.pem'), receiver.ca);
    env = {
      ...store.env,
      WEBHOOK_KEY: randomBytes(32).toString('base64url'),
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      NODE_EXTRA_CA_CERTS: join(shared, 'receiver-ca.pem'),
      WEBHOOK_LEASE_SECONDS: String(LEASE_SECONDS),
    };
  }, 60_000);

  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop('SIGKILL')));
    await store?.close();
    await receiver?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('the second process sends it after the lease, with the same delivery id; the first attempt is never recorded', async () => {
    const first = await start();
    await importFixtureVia(first, 'f11.1-data.csv');
    const { key } = await accountWithKeyVia(first, 'takeover@example.test', 'professional');
    const created = await fetch(`${first.publicUrl}/api/webhook-subscriptions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: receiver.url('/slow') }),
    });
    const { signingSecret } = (await created.json()) as { signingSecret: string };
    receiver.setSecret('/slow', signingSecret);
    receiver.behave('/slow', 'hang', { status: 200 }); // the first attempt never gets an answer

    const today = sydneyDate(new Date());
    await first.operator(graphql('mutation($input: ImportRatesInput!) { importRates(input: $input) { deliveries } }'), {
      input: { source: 'takeover test', format: 'csv', publicationDate: today, days: [{ date: today, rates: [{ code: 'USD', value: '0.6512' }] }] },
    });
    await receiver.waitFor(1, 20_000); // the first process is mid-attempt
    const killedAt = Date.now();
    await first.stop('SIGKILL');

    await start();
    await receiver.waitFor(2, (LEASE_SECONDS + 20) * 1000);
    const [lost, retried] = receiver.deliveries;
    expect(Date.now() - killedAt).toBeGreaterThan((LEASE_SECONDS - 5) * 1000); // not before the lease ran out
    expect(retried!.headers['x-exchangerates-delivery']).toBe(lost!.headers['x-exchangerates-delivery']);
    expect(retried!.rawBody).toBe(lost!.rawBody);
    expect(retried!.signatureValid).toBe(true);
    expect(retried!.answeredWith).toBe(200);

    // the outcome is written once the receiver's answer is in (outcomes are written in batches)
    const expected = [{ id: lost!.headers['x-exchangerates-delivery'], state: 'delivered', attempts: 1 }];
    await expect
      .poll(() => store.withDb((db) => db.selectFrom('webhook_deliveries').select(['id', 'state', 'attempts']).execute()), { timeout: 5_000 })
      .toEqual(expected);
  }, 90_000);
});
