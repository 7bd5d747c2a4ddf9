// D27 (docs/decisions.md): a `rates.published` delivery is a signed POST to the subscription's URL
// with the new day's rates, limited to the subscription's currencies. Sent by the delivery worker
// (runDue) to a real HTTPS receiver on 127.0.0.1; the clock is the test's.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RbaTable } from '../../src/rba/index.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { OPENSSL_AVAILABLE } from '../support/certificate.js';
import { expectInstant, unixOf, UUID } from '../support/expect.js';
import { startWebhookReceiver, type ReceivedDelivery, type WebhookReceiver } from '../support/webhook-receiver.js';

// Thursday 14 May 2026, 17:00 in Sydney.
const NOW = '2026-05-14T07:00:00Z';
const JSON_HEADERS = { 'Content-Type': 'application/json' };

const OLDER: RbaTable = {
  format: 'csv',
  publicationDate: null,
  days: [{ date: '2026-05-13', rates: { USD: '0.6501', EUR: '0.6001', JPY: '97.90', TWI: '61.20', IDR: '10601' } }],
};
// Trailing zeros on purpose ('0.6500', '98.10', '61.40', '1.0900'): the digits must arrive as /latest serves them.
const NEWEST_RATES = {
  USD: '0.6500',
  EUR: '0.6012',
  GBP: '0.5187',
  JPY: '98.10',
  KRW: '881.25',
  IDR: '10635',
  VND: '16210',
  NZD: '1.0900',
  TWI: '61.40',
  SDR: '0.4872',
} as const;
const NEWEST: RbaTable = { format: 'csv', publicationDate: '2026-05-14', days: [{ date: '2026-05-14', rates: NEWEST_RATES }] };

/** The JSON number text of `code` in a raw JSON `rates` object. */
function numberText(raw: string, code: string): string | undefined {
  return new RegExp(`"${code}":(-?[0-9.eE+-]+)`).exec(raw)?.[1];
}

describe.skipIf(!OPENSSL_AVAILABLE)('rates.published deliveries', () => {
  let receiver: WebhookReceiver;
  let t: TestApp;
  let proKey: string;
  let businessKey: string;
  const subs: Record<string, { id: string; secret: string; currencies: string[] | null }> = {};

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    t = await startTestApp({
      now: NOW,
      config: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
      webhookNetwork: { ca: [receiver.ca], timeoutMs: 2_000 },
    });
    proKey = await t.createKey('professional');
    businessKey = await t.createKey('business');
    await t.importTable(OLDER);
    const plan: [string, string, string[] | null][] = [
      [proKey, '/all', null],
      [proKey, '/some', ['USD', 'TWI', 'JPY', 'NZD', 'CAD']], // CAD was not published that day
      [businessKey, '/idr', ['IDR']],
    ];
    for (const [key, path, currencies] of plan) {
      const res = await t.json('/api/webhook-subscriptions', {
        key,
        method: 'POST',
        headers: JSON_HEADERS,
        body: { url: receiver.url(path), ...(currencies ? { currencies } : {}), description: `test ${path}` },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.signingSecret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
      subs[path] = { id: res.body.subscription.id, secret: res.body.signingSecret, currencies };
      receiver.setSecret(path, res.body.signingSecret);
    }
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  let latestRaw: string;
  let latest: any;
  let rows: { id: string; subscription_id: string }[];

  it('a publication is sent by runDue: exactly one request per subscription', async () => {
    const imported = await t.importTable(NEWEST);
    expect(imported).toMatchObject({ published: '2026-05-14', deliveries: 3 });
    rows = await t.db.selectFrom('webhook_deliveries').select(['id', 'subscription_id']).where('rate_date', '=', '2026-05-14').execute();
    expect(rows).toHaveLength(3);
    expect(receiver.deliveries).toHaveLength(0); // recorded, not sent, until the worker runs

    expect(await t.app.deliveries.runDue()).toBe(3);
    expect(receiver.deliveries.map((d) => d.path).sort()).toEqual(['/all', '/idr', '/some']);
    for (const d of receiver.deliveries) {
      expect(d.answeredWith).toBe(200);
      // a body, sent with a length: a POST (the receiver does not record the method itself)
      expect(d.headers['content-length']).toBe(String(Buffer.byteLength(d.rawBody)));
      if ('method' in d) expect((d as ReceivedDelivery & { method: string }).method).toBe('POST');
    }

    const response = await t.request('/latest', { key: proKey });
    expect(response.status).toBe(200);
    latestRaw = await response.text();
    latest = JSON.parse(latestRaw);
    expect(latest.date).toBe('2026-05-14');
  });

  const deliveryTo = (path: string): ReceivedDelivery => {
    const found = receiver.deliveries.filter((d) => d.path === path);
    expect(found).toHaveLength(1);
    return found[0]!;
  };

  it('carries the D27 headers: JSON, a User-Agent naming the service, the event, the delivery id and the signature', () => {
    for (const path of ['/all', '/some', '/idr']) {
      const d = deliveryTo(path);
      const row = rows.find((r) => r.subscription_id === subs[path]!.id)!;
      expect(d.headers['content-type']).toBe('application/json');
      expect(d.headers['user-agent']).toMatch(/^aud-rates/i);
      expect(d.headers['x-exchangerates-event']).toBe('rates.published');
      const deliveryId = d.headers['x-exchangerates-delivery'];
      expect(deliveryId).toMatch(UUID);
      expect(deliveryId).toBe(row.id);
      expect(d.json.delivery_id).toBe(deliveryId);
      const expected = createHmac('sha256', subs[path]!.secret).update(d.rawBody).digest('hex');
      expect(d.headers['x-exchangerates-signature']).toBe(`sha256=${expected}`);
      expect(d.headers['x-exchangerates-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(d.signatureValid).toBe(true);
    }
    // every subscription has a secret of its own
    expect(deliveryTo('/all').headers['x-exchangerates-signature']).not.toBe(
      `sha256=${createHmac('sha256', subs['/some']!.secret).update(deliveryTo('/all').rawBody).digest('hex')}`,
    );
  });

  it('the body is exactly {event, date, base, rates, delivery_id, timestamp}, as /latest shows the day', () => {
    for (const path of ['/all', '/some', '/idr']) {
      const d = deliveryTo(path);
      expect(Object.keys(d.json).sort()).toEqual(['base', 'date', 'delivery_id', 'event', 'rates', 'timestamp']);
      expect(d.json).toMatchObject({ event: 'rates.published', date: '2026-05-14', base: 'AUD' });
      expect(d.json.timestamp).toBe(unixOf('2026-05-14'));
      expect(d.json.timestamp).toBe(latest.timestamp);
    }
    const allCodes = Object.keys(NEWEST_RATES).sort();
    expect(Object.keys(deliveryTo('/all').json.rates).sort()).toEqual(allCodes);
    expect(Object.keys(deliveryTo('/some').json.rates).sort()).toEqual(['JPY', 'NZD', 'TWI', 'USD']);
    expect(Object.keys(deliveryTo('/idr').json.rates)).toEqual(['IDR']);
    for (const path of ['/all', '/some', '/idr']) {
      for (const [code, value] of Object.entries(deliveryTo(path).json.rates)) {
        expect(value, `${path} ${code}`).toBe(latest.rates[code]);
        expect(value, `${path} ${code}`).toBe(Number(NEWEST_RATES[code as keyof typeof NEWEST_RATES]));
      }
    }
  });

  // Regression guard: when this test was written the delivery wrote the imported text verbatim
  // (61.40, 0.6500) in the batch's order, while /latest prints each value as its shortest exact text
  // (61.4, 0.65) in the code list's order; src/webhooks/payload.ts now writes them as /latest does.
  it('the number texts in the body, and their order, are the ones /latest serves', () => {
    const body = deliveryTo('/all').rawBody;
    const texts = Object.fromEntries(Object.keys(NEWEST_RATES).map((code) => [code, numberText(body, code)]));
    const served = Object.fromEntries(Object.keys(NEWEST_RATES).map((code) => [code, numberText(latestRaw, code)]));
    expect(served).toMatchObject({ TWI: '61.4', USD: '0.65', NZD: '1.09', JPY: '98.1', IDR: '10635' });
    expect(texts).toEqual(served);
    const ratesText = (raw: string) => /"rates":(\{[^}]*\})/.exec(raw)?.[1];
    expect(ratesText(body)).toBe(ratesText(latestRaw));
  });

  it('success sets lastSuccessAt and keeps failureCount 0', async () => {
    const list = await t.json('/api/webhook-subscriptions', { key: proKey });
    expect(list.status).toBe(200);
    expect(list.body.subscriptions).toHaveLength(2);
    for (const s of list.body.subscriptions) {
      expect(s).toMatchObject({ isActive: true, failureCount: 0 });
      expectInstant(s.lastSuccessAt, NOW);
    }
    const states = await t.db.selectFrom('webhook_deliveries').select(['state', 'attempts', 'last_status']).where('rate_date', '=', '2026-05-14').execute();
    expect(states).toEqual(Array(3).fill({ state: 'delivered', attempts: 1, last_status: 200 }));
  });

  it('a second runDue sends nothing more, now or hours later', async () => {
    expect(await t.app.deliveries.runDue()).toBe(0);
    t.setNow('2026-05-14T15:00:00Z');
    expect(await t.app.deliveries.runDue()).toBe(0);
    expect(receiver.deliveries).toHaveLength(3);
  });

  // Regression guard: a value with leading zeros passes the import's check (isPlainDecimal,
  // /^\d+(\.\d+)?$/; the RBA CSV parser and the operator's importRates both accept '00.6543') and is
  // stored fine. When this test was written the delivery wrote it verbatim, `"USD":00.6543`, which is
  // not JSON: every subscriber got a validly signed body it could not parse. /latest serves 0.6543.
  it('a value imported with leading zeros still gives a JSON body', async () => {
    t.setNow('2026-05-15T07:00:00Z');
    const imported = await t.importTable({
      format: 'csv',
      publicationDate: '2026-05-15',
      days: [{ date: '2026-05-15', rates: { USD: '00.6543', TWI: '061.40', EUR: '0.6020' } }],
    });
    expect(imported).toMatchObject({ published: '2026-05-15', deliveries: 3 });
    const latestNow = await t.json('/latest?symbols=USD,TWI', { key: proKey });
    expect(latestNow.body.rates).toEqual({ USD: 0.6543, TWI: 61.4 });
    expect(await t.app.deliveries.runDue()).toBe(3);
    const some = receiver.deliveries.filter((d) => d.path === '/some').at(-1)!;
    expect(some.signatureValid).toBe(true);
    expect(() => JSON.parse(some.rawBody), some.rawBody).not.toThrow();
    expect(some.json?.rates).toEqual({ USD: 0.6543, TWI: 61.4 });
  });
});
