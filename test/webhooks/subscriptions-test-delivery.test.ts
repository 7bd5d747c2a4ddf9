// POST /api/webhook-subscriptions/{id}/test (docs/api.md §4.2 rule 4, §6; D27, D28, D34 in
// docs/decisions.md): one signed rates.test delivery, sent at once to a real HTTPS receiver on
// 127.0.0.1, answered with {success, responseStatus, message}; it changes neither failureCount nor
// lastSuccessAt.
// WEBHOOK_ALLOW_PRIVATE_TARGETS lets the service reach the loopback receiver; https stays required.
// The one host name used (receiver.test) reaches an injected resolver: no real name is looked up.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/domain/plans.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { OPENSSL_AVAILABLE } from '../support/certificate.js';
import { expectError, UUID } from '../support/expect.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { tableResolver } from '../support/dns.js';
import { graphql } from '../../src/graphql.js';

const PATH = '/api/webhook-subscriptions';
const SET_PLAN = graphql('mutation($e: EmailAddress!, $p: Plan!) { setAccountPlan(email: $e, plan: $p) { plan } }');
const JSON_TYPE = { 'Content-Type': 'application/json' };
/** One attempt's bound for this file: long enough for the loopback receiver, short enough for a hang. */
const TIMEOUT_MS = 1500;

describe.skipIf(!OPENSSL_AVAILABLE)('the test delivery', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    const { resolve } = tableResolver({ 'receiver.test': ['127.0.0.1'] });
    t = await startTestApp({
      config: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
      webhookNetwork: { ca: [receiver.ca], resolve, timeoutMs: TIMEOUT_MS },
    });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });
  beforeEach(() => receiver.clear());

  async function account(plan: Plan = 'professional'): Promise<{ key: string; email: string }> {
    const email = `test-delivery-${plan}-${randomUUID()}@example.test`;
    return { key: await t.createKey(plan, email), email };
  }

  /** A subscription to the receiver at a path of its own; the receiver checks its signatures. */
  async function subscribe(key: string, extra: Record<string, unknown> = {}, host?: string) {
    const path = `/hook-${randomUUID()}`;
    const res = await t.json(PATH, { key, method: 'POST', headers: JSON_TYPE, body: { url: receiver.url(path, host), ...extra } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    receiver.setSecret(path, res.body.signingSecret);
    return { id: res.body.subscription.id as string, secret: res.body.signingSecret as string, path };
  }

  const sendTest = (key: string, id: string) => t.json(`${PATH}/${id}/test`, { key, method: 'POST' });
  const health = async (key: string, id: string) => {
    const found = (await t.json(PATH, { key })).body.subscriptions.find((s: { id: string }) => s.id === id);
    return { isActive: found.isActive, failureCount: found.failureCount, lastSuccessAt: found.lastSuccessAt };
  };

  describe('before any rates are stored', () => {
    it('503 service_unavailable, and nothing is sent', async () => {
      const { key } = await account();
      const { id } = await subscribe(key);
      expectError(await sendTest(key, id), 503, 'service_unavailable', /rates/i);
      expect(receiver.deliveries).toEqual([]);
    });
  });

  describe('with rates stored', () => {
    let latest: { date: string; timestamp: number; rates: Record<string, number> };
    beforeAll(async () => {
      await t.importFixture('f11.1-data.csv');
      const { key } = await account();
      const res = await t.json('/latest', { key });
      expect(res.status).toBe(200);
      latest = res.body;
    });

    it('sends one signed rates.test delivery and answers success, responseStatus and a message', async () => {
      const { key } = await account();
      const { id, path } = await subscribe(key, { currencies: ['usd', 'EUR', 'JPY'] });
      const res = await sendTest(key, id);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({ success: true, responseStatus: 200, message: expect.any(String) });
      expect(res.body.message.length).toBeGreaterThan(5);

      expect(receiver.deliveries).toHaveLength(1);
      const [delivery] = receiver.deliveries;
      expect(delivery!.path).toBe(path);
      expect(delivery!.signatureValid).toBe(true);
      expect(delivery!.headers['x-exchangerates-event']).toBe('rates.test');
      expect(delivery!.headers['x-exchangerates-delivery']).toMatch(UUID);
      expect(delivery!.headers['x-exchangerates-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(delivery!.headers['content-type']).toMatch(/^application\/json/);
      expect(delivery!.headers['user-agent']).toMatch(/\S/);
    });

    it("the body is {event, date, base, rates, delivery_id, timestamp} with only the subscription's currencies", async () => {
      const { key } = await account();
      const { id } = await subscribe(key, { currencies: ['usd', 'EUR', 'JPY'] });
      expect((await sendTest(key, id)).status).toBe(200);
      const [delivery] = receiver.deliveries;
      expect(Object.keys(delivery!.json).sort()).toEqual(['base', 'date', 'delivery_id', 'event', 'rates', 'timestamp']);
      expect(delivery!.json).toEqual({
        event: 'rates.test',
        date: latest.date,
        base: 'AUD',
        rates: { USD: latest.rates.USD, EUR: latest.rates.EUR, JPY: latest.rates.JPY },
        delivery_id: delivery!.headers['x-exchangerates-delivery'],
        timestamp: latest.timestamp,
      });
    });

    it("a subscription to every code receives the latest day's full rates", async () => {
      const { key } = await account();
      const { id } = await subscribe(key);
      expect((await sendTest(key, id)).body.success).toBe(true);
      const [delivery] = receiver.deliveries;
      expect(delivery!.json.rates).toEqual(latest.rates);
      expect(delivery!.json.rates).not.toHaveProperty('AUD');
    });

    it('the signature is the hex HMAC-SHA256 of the raw body with the secret given at creation', async () => {
      const { createHmac } = await import('node:crypto');
      const { key } = await account();
      const { id, secret } = await subscribe(key, { currencies: ['NZD'] });
      await sendTest(key, id);
      const [delivery] = receiver.deliveries;
      const expected = `sha256=${createHmac('sha256', secret).update(delivery!.rawBody).digest('hex')}`;
      expect(delivery!.headers['x-exchangerates-signature']).toBe(expected);
      // another secret does not verify it
      const other = `sha256=${createHmac('sha256', `whsec_${randomBytes(32).toString('base64url')}`)
        .update(delivery!.rawBody)
        .digest('hex')}`;
      expect(delivery!.headers['x-exchangerates-signature']).not.toBe(other);
    });

    it('each test is a new delivery with a new id', async () => {
      const { key } = await account();
      const { id } = await subscribe(key, { currencies: ['GBP'] });
      await sendTest(key, id);
      await sendTest(key, id);
      expect(receiver.deliveries).toHaveLength(2);
      const ids = receiver.deliveries.map((d) => d.headers['x-exchangerates-delivery']);
      expect(new Set(ids).size).toBe(2);
      expect(receiver.deliveries.map((d) => d.json.delivery_id)).toEqual(ids);
    });

    it('reaches a host name through the resolver, with that name as the TLS server name', async () => {
      const { key } = await account();
      const { id, path } = await subscribe(key, { currencies: ['SGD'] }, 'receiver.test');
      const res = await sendTest(key, id);
      expect(res.body).toMatchObject({ success: true, responseStatus: 200 });
      expect(receiver.deliveries).toMatchObject([{ path, servername: 'receiver.test', signatureValid: true }]);
    });

    it('any 2xx counts as delivered and is reported as answered', async () => {
      const { key } = await account();
      const { id, path } = await subscribe(key, { currencies: ['USD'] });
      receiver.behave(path, { status: 202 }, { status: 204 });
      expect((await sendTest(key, id)).body).toMatchObject({ success: true, responseStatus: 202 });
      expect((await sendTest(key, id)).body).toMatchObject({ success: true, responseStatus: 204 });
    });

    it('a receiver answering 500: 200 with success false and responseStatus 500', async () => {
      const { key } = await account();
      const { id, path } = await subscribe(key, { currencies: ['USD'] });
      receiver.behave(path, { status: 500 });
      const res = await sendTest(key, id);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({ success: false, responseStatus: 500, message: expect.any(String) });
      expect(res.body.message).toMatch(/500/);
      expect(receiver.deliveries).toHaveLength(1);
    });

    it('a 404 from the receiver is a failure with responseStatus 404', async () => {
      const { key } = await account();
      const { id, path } = await subscribe(key, { currencies: ['USD'] });
      receiver.behave(path, { status: 404 });
      expect((await sendTest(key, id)).body).toMatchObject({ success: false, responseStatus: 404 });
    });

    it('a redirect is not followed (D28): success false, responseStatus 302', async () => {
      const { key } = await account();
      const { id, path } = await subscribe(key, { currencies: ['USD'] });
      receiver.behave(path, { redirect: receiver.url('/elsewhere') });
      const res = await sendTest(key, id);
      expect(res.body).toMatchObject({ success: false, responseStatus: 302 });
      expect(receiver.deliveries.map((d) => d.path)).toEqual([path]);
    });

    it('a receiver that never answers: success false after the timeout, responseStatus 0', async () => {
      const { key } = await account();
      const { id, path } = await subscribe(key, { currencies: ['USD'] });
      receiver.behave(path, 'hang');
      const started = Date.now();
      const res = await sendTest(key, id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: false, responseStatus: 0, message: expect.any(String) });
      expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    });

    it('a receiver that drops the connection: success false, responseStatus 0', async () => {
      const { key } = await account();
      const { id, path } = await subscribe(key, { currencies: ['USD'] });
      receiver.behave(path, 'close');
      expect((await sendTest(key, id)).body).toMatchObject({ success: false, responseStatus: 0 });
    });

    it('nothing listening at the address: success false, responseStatus 0', async () => {
      const { key } = await account();
      const { id } = await subscribe(key, { currencies: ['USD'] });
      // Point the stored URL at a port with no server behind it (the receiver's port + 1 may be taken, so use port 1).
      await t.db.updateTable('webhook_subscriptions').set({ url: 'https://127.0.0.1:1/nobody' }).where('id', '=', id).execute();
      expect((await sendTest(key, id)).body).toMatchObject({ success: false, responseStatus: 0 });
    });

    it('a failing test changes neither failureCount nor lastSuccessAt, nor deactivates', async () => {
      const { key } = await account();
      const { id, path } = await subscribe(key, { currencies: ['USD'] });
      receiver.behave(path, { status: 500 });
      const before = await health(key, id);
      expect(before).toEqual({ isActive: true, failureCount: 0, lastSuccessAt: null });
      for (let i = 0; i < 3; i++) expect((await sendTest(key, id)).body.success).toBe(false);
      expect(await health(key, id)).toEqual(before);

      // one short of deactivation (D28: at 10) a failing test still changes nothing
      await t.db.updateTable('webhook_subscriptions').set({ failure_count: 9 }).where('id', '=', id).execute();
      expect((await sendTest(key, id)).body.success).toBe(false);
      expect(await health(key, id)).toEqual({ isActive: true, failureCount: 9, lastSuccessAt: null });
    });

    it('a succeeding test changes neither: lastSuccessAt stays null and failureCount is not reset', async () => {
      const { key } = await account();
      const { id } = await subscribe(key, { currencies: ['USD'] });
      expect((await sendTest(key, id)).body.success).toBe(true);
      expect(await health(key, id)).toEqual({ isActive: true, failureCount: 0, lastSuccessAt: null });

      await t.db.updateTable('webhook_subscriptions').set({ failure_count: 4 }).where('id', '=', id).execute();
      expect((await sendTest(key, id)).body.success).toBe(true);
      expect(await health(key, id)).toEqual({ isActive: true, failureCount: 4, lastSuccessAt: null });
    });

    it("404 not_found for another account's id, exactly as for an unknown id; nothing is sent", async () => {
      const mine = await account();
      const theirs = await account();
      const { id } = await subscribe(theirs.key, { currencies: ['USD'] });
      const missing = randomBytes(16).toString('hex');
      const a = await sendTest(mine.key, id);
      const b = await sendTest(mine.key, missing);
      expectError(a, 404, 'not_found');
      expectError(b, 404, 'not_found');
      expect(JSON.stringify(a.body).replaceAll(id, '<id>')).toBe(JSON.stringify(b.body).replaceAll(missing, '<id>'));
      expectError(await sendTest(mine.key, 'not-an-id'), 404, 'not_found');
      expect(receiver.deliveries).toEqual([]);
    });

    it('after a downgrade to Starter: 403 webhooks_not_available, nothing is sent', async () => {
      const { key, email } = await account();
      const { id } = await subscribe(key, { currencies: ['USD'] });
      expect((await t.operator(SET_PLAN, { e: email, p: 'starter' })).errors).toBeUndefined();
      expectError(await sendTest(key, id), 403, 'webhooks_not_available');
      expect(receiver.deliveries).toEqual([]);
    });

    it('401 without a key, nothing is sent', async () => {
      const { key } = await account();
      const { id } = await subscribe(key, { currencies: ['USD'] });
      expectError(await t.json(`${PATH}/${id}/test`, { method: 'POST' }), 401, 'invalid_api_key');
      expect(receiver.deliveries).toEqual([]);
    });

    it('is not cacheable', async () => {
      const { key } = await account();
      const { id } = await subscribe(key, { currencies: ['USD'] });
      expect((await sendTest(key, id)).headers.get('cache-control')).toBe('no-store');
    });
  });

  describe('WEBHOOK_ALLOW_PRIVATE_TARGETS (D34)', () => {
    it('lets a loopback address be subscribed', async () => {
      const { key } = await account();
      const res = await t.json(PATH, { key, method: 'POST', headers: JSON_TYPE, body: { url: receiver.url('/private-ok') } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    });

    it('still requires https', async () => {
      const { key } = await account();
      const url = receiver.url('/plain').replace(/^https:/, 'http:');
      const res = await t.json(PATH, { key, method: 'POST', headers: JSON_TYPE, body: { url } });
      expectError(res, 400, 'bad_request', /https/);
    });
  });
});
