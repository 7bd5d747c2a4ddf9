// A claimed delivery belongs to its process until the lease runs out; a process that died holding
// it is taken over afterwards, with the same delivery id. And D30 (docs/decisions.md): the target
// is resolved again at every attempt, so a name that pointed at a public address at creation and at
// 127.0.0.1 later is refused at delivery time (private targets not allowed here): nothing leaves
// this machine.
import { describe, expect, it } from 'vitest';
import { claimDueDeliveries } from '../../src/db/webhook-deliveries.js';
import { PLANS_WITH_WEBHOOKS } from '../../src/domain/plans.js';
import type { RbaDay } from '../../src/rba/index.js';
import type { Resolver } from '../../src/webhooks/target.js';
import { OPENSSL_AVAILABLE } from '../support/certificate.js';
import { expectError } from '../support/expect.js';
import { useWebhookReceiver } from '../support/webhook-receiver.js';

const JSON_HEADERS = { 'Content-Type': 'application/json' };
// Wednesday 13 May 2026, 17:00 in Sydney.
const T0 = '2026-05-13T07:00:00.000Z';
const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
const day = (date: string): RbaDay => ({ date, rates: { USD: '0.6543', EUR: '0.6012' } });
// A public unicast address for the creation-time check. It is only ever an answer of the injected
// resolver and is never connected to: from the first delivery attempt on the resolver answers 127.0.0.1.
const PUBLIC_ADDRESS = '93.184.215.14';

describe.skipIf(!OPENSSL_AVAILABLE)('lease takeover and delivery-time SSRF checks', () => {
  const { receiver, startApp } = useWebhookReceiver();

  it('a delivery claimed by a process that died is sent only after its lease runs out, with the same id', async () => {
    const t = await startApp({
      now: T0,
      config: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
      webhookNetwork: { ca: [receiver.ca], timeoutMs: 2_000 },
    });
    const key = await t.createKey('professional');
    await t.importTable({ format: 'csv', publicationDate: null, days: [day('2026-05-12')] });
    const created = await t.json('/api/webhook-subscriptions', { key, method: 'POST', headers: JSON_HEADERS, body: { url: receiver.url('/lease') } });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    receiver.setSecret('/lease', created.body.signingSecret);
    expect(await t.importTable({ format: 'csv', publicationDate: null, days: [day('2026-05-13')] })).toMatchObject({ deliveries: 1 });

    // Another process claims it for a minute, then dies without recording anything.
    const leaseUntil = new Date(plus(T0, 60_000));
    const claimed = await claimDueDeliveries(t.db, new Date(T0), leaseUntil, 10, PLANS_WITH_WEBHOOKS);
    expect(claimed).toHaveLength(1);
    const deliveryId = claimed[0]!.id;

    expect(await t.app.deliveries.runDue()).toBe(0);
    t.setNow(plus(T0, 59_999));
    expect(await t.app.deliveries.runDue()).toBe(0);
    expect(receiver.deliveries).toHaveLength(0);

    t.setNow(plus(T0, 61_000));
    expect(await t.app.deliveries.runDue()).toBe(1);
    expect(receiver.deliveries).toHaveLength(1);
    const sent = receiver.deliveries[0]!;
    expect(sent.headers['x-exchangerates-delivery']).toBe(deliveryId);
    expect(sent.json.delivery_id).toBe(deliveryId);
    expect(sent.signatureValid).toBe(true);
    const row = await t.db.selectFrom('webhook_deliveries').select(['id', 'state', 'attempts', 'leased_until']).executeTakeFirstOrThrow();
    expect(row).toEqual({ id: deliveryId, state: 'delivered', attempts: 1, leased_until: null });

    // once delivered it is never claimed again
    expect(await claimDueDeliveries(t.db, new Date(plus(T0, 86_400_000)), new Date(plus(T0, 86_460_000)), 10, PLANS_WITH_WEBHOOKS)).toEqual([]);
  });

  it('a name re-pointed at 127.0.0.1 after creation is refused at the delivery attempt; the receiver sees nothing', async () => {
    let phase: 'creation' | 'delivery' = 'creation';
    const asked: { hostname: string; phase: string }[] = [];
    const resolve: Resolver = async (hostname) => {
      asked.push({ hostname, phase });
      if (hostname === 'hooks.example.com') return phase === 'creation' ? [PUBLIC_ADDRESS] : ['127.0.0.1'];
      if (hostname === 'mixed.example.com') return phase === 'creation' ? [PUBLIC_ADDRESS] : [PUBLIC_ADDRESS, '127.0.0.1'];
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    };
    const app = await startApp({
      now: T0,
      config: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' },
      webhookNetwork: { resolve, ca: [receiver.ca], timeoutMs: 2_000 },
    });
    const key = await app.createKey('professional');
    await app.importTable({ format: 'csv', publicationDate: null, days: [day('2026-05-12')] });

    // Private targets are refused at creation: an IP literal needs no resolution.
    expectError(
      await app.json('/api/webhook-subscriptions', { key, method: 'POST', headers: JSON_HEADERS, body: { url: receiver.url('/literal') } }),
      400,
      'bad_request',
    );

    const subscribe = async (host: string, path: string) => {
      const res = await app.json('/api/webhook-subscriptions', { key, method: 'POST', headers: JSON_HEADERS, body: { url: receiver.url(path, host) } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.subscription.id as string;
    };
    const rebound = await subscribe('hooks.example.com', '/rebound');
    const mixed = await subscribe('mixed.example.com', '/mixed');
    expect(asked.map((a) => a.hostname).sort()).toEqual(['hooks.example.com', 'mixed.example.com']);

    phase = 'delivery';
    expect(await app.importTable({ format: 'csv', publicationDate: null, days: [day('2026-05-13')] })).toMatchObject({ deliveries: 2 });
    expect(await app.app.deliveries.runDue()).toBe(2);
    expect(receiver.deliveries).toEqual([]);
    expect(receiver.openConnections()).toBe(0);
    // resolved again for the attempt, not taken from creation
    expect(
      asked
        .filter((a) => a.phase === 'delivery')
        .map((a) => a.hostname)
        .sort(),
    ).toEqual(['hooks.example.com', 'mixed.example.com']);

    const rows = await app.db.selectFrom('webhook_deliveries').select(['subscription_id', 'state', 'attempts', 'last_status', 'last_error']).execute();
    for (const id of [rebound, mixed]) {
      const row = rows.find((r) => r.subscription_id === id)!;
      expect(row).toMatchObject({ state: 'pending', attempts: 1, last_status: null });
      expect(row.last_error).toMatch(/not public/);
      // the stored reason names the rule, never the address
      expect(row.last_error).not.toContain('127.0.0.1');
    }
    const list = await app.json('/api/webhook-subscriptions', { key });
    for (const s of list.body.subscriptions) expect(s).toMatchObject({ failureCount: 1, lastSuccessAt: null, isActive: true });

    // and so at every retry
    app.setNow(plus(T0, 60_000));
    expect(await app.app.deliveries.runDue()).toBe(2);
    expect(receiver.deliveries).toEqual([]);
    expect(asked.filter((a) => a.phase === 'delivery')).toHaveLength(4);
  });
});
