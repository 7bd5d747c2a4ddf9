// Rate alerts fire at a publication (docs/api.md §4.3): a store holding a day, alerts on both sides
// of the next day's values, then that day imported. Exactly the alerts that should fire do, once
// each, on each channel: a signed `rates.alert` delivery to a real HTTPS receiver, and an e-mail to
// a real SMTP server with the link that pauses the alert. The same file again, and a correction of
// an old day, fire nothing.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RbaDay, RbaTable } from '../../src/rba/index.js';
import { graphql } from '../../src/graphql.js';
import { alertDeliveries, createAlert, firings, JSON_HEADERS } from '../support/alerts.js';
import { OPENSSL_AVAILABLE } from '../support/certificate.js';
import { Browser, startDashboardApp, type DashboardApp, type ReceivedMail } from '../support/dashboard.js';
import { expectError, unixOf, UUID } from '../support/expect.js';
import { scrape, seriesValue } from '../support/prometheus.js';
import { evening, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const FIRST: RbaDay = { date: '2026-05-13', rates: { USD: '0.6501', EUR: '0.6001', JPY: '97.90', GBP: '0.5100' } };
const NEXT: RbaDay = { date: '2026-05-14', rates: { USD: '0.6612', EUR: '0.5950', JPY: '98.10', GBP: '0.5100' } };
const IMPORT = graphql('mutation($input: ImportRatesInput!) { importRates(input: $input) { published deliveries alertsFired } }');
const table = (publicationDate: string | null, ...days: RbaDay[]): RbaTable => ({ format: 'csv', publicationDate, days });

/** The pause link of an alert e-mail. */
const pauseLinkOf = (mail: ReceivedMail) => /https?:\/\/[^\s"<>]+\/dashboard\/alerts\/pause\?token=[0-9a-f]{32}\.[A-Za-z0-9_-]+/.exec(mail.raw)?.[0] ?? '';

describe.skipIf(!OPENSSL_AVAILABLE)('alerts at a publication', () => {
  let receiver: WebhookReceiver;
  let t: DashboardApp;
  const ids: Record<string, string> = {};
  let business: { key: string; email: string };
  let starter: { key: string; email: string };
  const subs: Record<string, string> = {};
  let published: { published: string | null; deliveries: number; alertsFired: number } | undefined;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    t = await startDashboardApp({
      now: evening(FIRST.date),
      config: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
      webhookNetwork: { ca: [receiver.ca], timeoutMs: 2_000 },
    });
    await t.importTable(table(FIRST.date, FIRST));
    business = { email: 'treasury@business.test', key: '' };
    business.key = await t.createKey('business', business.email);
    starter = { email: 'owner@starter.test', key: '' };
    starter.key = await t.createKey('starter', starter.email);
    const suspended = await t.createKey('professional', 'gone@suspended.test');

    for (const [path, currencies] of [
      ['/all', undefined],
      ['/eur', ['EUR']],
      ['/gbp', ['GBP']],
    ] as const) {
      const res = await t.json('/api/webhook-subscriptions', {
        key: business.key,
        method: 'POST',
        headers: JSON_HEADERS,
        body: { url: receiver.url(path), ...(currencies ? { currencies } : {}) },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      receiver.setSecret(path, res.body.signingSecret);
      subs[path] = res.body.subscription.id;
    }

    const make = (name: string, key: string, spec: Parameters<typeof createAlert>[2]) => createAlert(t, key, spec).then((id) => (ids[name] = id));
    // fire: a crossing upwards, the level met exactly, a crossing downwards met exactly, a move at its threshold
    await make('usdAbove', business.key, { currency: 'USD', condition: 'above', value: 0.66, channels: ['email', 'webhook'] });
    await make('usdAboveExactly', business.key, { currency: 'USD', condition: 'above', value: '0.6612', channels: ['webhook'] });
    await make('eurBelowExactly', business.key, { currency: 'EUR', condition: 'below', value: 0.595, channels: ['email', 'webhook'] });
    // 98.10 / 97.90 − 1 = 0.2042900…%
    await make('jpyMove', business.key, { currency: 'JPY', condition: 'change_pct', value: '0.2042', channels: ['webhook'] });
    await make('starterUsd', starter.key, { currency: 'USD', condition: 'above', value: '0.66', channels: ['email'] });
    // stay quiet: just short of the level, already above before, just short of the move, no move at all, paused, suspended
    await make('usdShort', business.key, { currency: 'USD', condition: 'above', value: '0.6613', channels: ['email', 'webhook'] });
    await make('usdAlreadyAbove', business.key, { currency: 'USD', condition: 'above', value: '0.65', channels: ['email'] });
    await make('eurShort', business.key, { currency: 'EUR', condition: 'below', value: '0.5949', channels: ['email'] });
    await make('jpyShort', business.key, { currency: 'JPY', condition: 'change_pct', value: '0.2043', channels: ['email'] });
    await make('gbpFlat', business.key, { currency: 'GBP', condition: 'change_pct', value: '0.000001', channels: ['email', 'webhook'] });
    await make('paused', business.key, { currency: 'USD', condition: 'above', value: '0.66', channels: ['email'] });
    const paused = await t.json(`/api/alerts/${ids.paused}`, { key: business.key, method: 'PATCH', headers: JSON_HEADERS, body: { isActive: false } });
    expect(paused.body.alert.isActive).toBe(false);
    await make('suspended', suspended, { currency: 'USD', condition: 'above', value: '0.66', channels: ['email'] });
    const suspend = await t.operator(graphql('mutation($e: EmailAddress!, $s: AccountStatus!) { setAccountStatus(email: $e, status: $s) { status } }'), {
      e: 'gone@suspended.test',
      s: 'suspended',
    });
    expect(suspend.errors).toBeUndefined();

    t.setNow(evening(NEXT.date));
    // as the operator's import reports it
    const stored = await t.operator(IMPORT, {
      input: {
        source: 'alerts test',
        format: 'csv',
        publicationDate: NEXT.date,
        days: [{ date: NEXT.date, rates: Object.entries(NEXT.rates).map(([code, value]) => ({ code: code as 'USD', value: value })) }],
      },
    });
    published = stored.data?.importRates;
  });

  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('records one firing per alert whose condition the new day meets, with the value and the previous day', async () => {
    // 3 subscriptions: one rates.published delivery each; five alerts fire
    expect(published).toEqual({ published: NEXT.date, deliveries: 3, alertsFired: 5 });
    const fired = new Map((await firings(t)).map((f) => [f.alert_id, f]));
    const expected = ['usdAbove', 'usdAboveExactly', 'eurBelowExactly', 'jpyMove', 'starterUsd'];
    expect([...fired.keys()].sort()).toEqual(expected.map((name) => ids[name]).sort());
    expect(fired.get(ids.usdAbove!)).toMatchObject({ rate_date: NEXT.date, value: '0.6612', previous_value: '0.6501', previous_date: FIRST.date });
    expect(fired.get(ids.jpyMove!)).toMatchObject({ value: '98.1', previous_value: '97.90' });
  });

  it('lists the firing as lastTriggeredAt and triggerCount', async () => {
    const list = await t.json('/api/alerts', { key: business.key });
    const byId = new Map(list.body.alerts.map((a: any) => [a.id, a]));
    expect(byId.get(ids.usdAbove)).toMatchObject({ triggerCount: 1, lastTriggeredAt: new Date(evening(NEXT.date)).toISOString() });
    expect(byId.get(ids.usdShort)).toMatchObject({ triggerCount: 0, lastTriggeredAt: null });
  });

  it('sends one signed rates.alert delivery per firing and subscription covering its currency', async () => {
    const rows = await alertDeliveries(t);
    const pairs = rows.map((r) => `${r.alert_id} ${r.subscription_id}`).sort();
    expect(pairs).toEqual(
      [
        `${ids.usdAbove} ${subs['/all']}`,
        `${ids.usdAboveExactly} ${subs['/all']}`,
        `${ids.eurBelowExactly} ${subs['/all']}`,
        `${ids.eurBelowExactly} ${subs['/eur']}`,
        `${ids.jpyMove} ${subs['/all']}`,
      ].sort(),
    );
    await t.app.deliveries.runDue();
    const alerts = receiver.deliveries.filter((d) => d.headers['x-exchangerates-event'] === 'rates.alert');
    expect(alerts).toHaveLength(5);
    for (const d of alerts) {
      expect(d.signatureValid).toBe(true);
      expect(d.headers['x-exchangerates-delivery']).toMatch(UUID);
      expect(d.json.delivery_id).toBe(d.headers['x-exchangerates-delivery']);
    }
    const usd = alerts.find((d) => d.json.alert.id === ids.usdAbove)!;
    expect(usd.rawBody).toBe(
      `{"event":"rates.alert","delivery_id":"${usd.json.delivery_id}","timestamp":${unixOf(NEXT.date)},` +
        `"alert":{"id":"${ids.usdAbove}","currency":"USD","condition":"above","value":0.66},` +
        `"date":"2026-05-14","rate":0.6612,"previous_date":"2026-05-13","previous_rate":0.6501,"change_pct":1.70743}`,
    );
    const eur = alerts.find((d) => d.json.alert.id === ids.eurBelowExactly)!;
    expect(eur.json).toMatchObject({ rate: 0.595, previous_rate: 0.6001, change_pct: -0.849858 });
    // the subscriber's own check of the signature
    const secretless = createHmac('sha256', 'not the secret').update(usd.rawBody).digest('hex');
    expect(usd.headers['x-exchangerates-signature']).not.toBe(`sha256=${secretless}`);
    // each attempt is recorded as the alert's; the publications' roll-up counts only the 3 rates.published deliveries
    const attempts = await t.db.selectFrom('webhook_attempts').select('delivery_id').where('event', '=', 'rates.alert').execute();
    expect(attempts).toHaveLength(5);
    const daily = await t.db.selectFrom('webhook_deliveries_daily').select(['deliveries']).where('rate_date', '=', NEXT.date).execute();
    expect(daily.reduce((sum, row) => sum + row.deliveries, 0)).toBe(3);
    // and the delivery log lists them, as any delivery
    const log = await t.json(`/api/webhook-subscriptions/${subs['/eur']}/deliveries`, { key: business.key });
    expect(log.body.deliveries.map((d: any) => [d.event, d.state])).toEqual(expect.arrayContaining([['rates.alert', 'delivered']]));
  });

  it('an alert delivery may be redelivered by hand, as any delivery', async () => {
    const [row] = (await alertDeliveries(t)).filter((r) => r.subscription_id === subs['/eur']);
    const before = receiver.deliveries.length;
    const res = await t.json(`/api/webhook-subscriptions/${subs['/eur']}/deliveries/${row!.id}/redeliver`, { key: business.key, method: 'POST' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.delivery).toMatchObject({ id: row!.id, state: 'delivered' });
    const again = receiver.deliveries[before]!;
    expect(again.headers['x-exchangerates-event']).toBe('rates.alert');
    expect(again.rawBody).toBe(row!.payload);
    const attempts = await t.db.selectFrom('webhook_attempts').select(['event', 'attempt']).where('delivery_id', '=', row!.id).orderBy('attempt').execute();
    expect(attempts).toEqual([
      { event: 'rates.alert', attempt: 1 },
      { event: 'rates.alert', attempt: 2 },
    ]);
  });

  it('e-mails each firing once, naming the currency, the condition, both rates and dates, with a pause link', async () => {
    expect(await t.app.alertMail.runDue()).toBe(3);
    const mails = t.mailbox.received.filter((m) => /Rate alert/.test(m.raw));
    expect(mails).toHaveLength(3);
    expect(mails.map((m) => m.to[0]).sort()).toEqual([business.email, business.email, starter.email].sort());
    const starterMail = mails.find((m) => m.to[0] === starter.email)!;
    expect(starterMail.raw).toContain('Subject: Rate alert: USD at 0.6612 on 2026-05-14 (+1.70743%)');
    for (const text of ['USD rises to 0.66 or above', 'A$1 = 0.6612 USD on 2026-05-14', 'A$1 = 0.6501 USD on 2026-05-13', 'text/html', 'text/plain']) {
      expect(starterMail.raw).toContain(text);
    }
    expect(pauseLinkOf(starterMail)).toContain(`token=${ids.starterUsd}.`);
    // nothing more is due: each e-mail went once
    expect(await t.app.alertMail.runDue()).toBe(0);
  });

  it('the same file again fires nothing, and neither does a correction of an older day', async () => {
    const deliveriesBefore = (await alertDeliveries(t)).length;
    expect(await t.importTable(table(NEXT.date, NEXT))).toMatchObject({ published: null });
    const corrected = await t.importTable(table(null, { date: FIRST.date, rates: { USD: '0.6400', EUR: '0.6100', JPY: '90.00' } }));
    expect(corrected).toMatchObject({ updated: 1, published: null });
    expect((await firings(t)).length).toBe(5);
    expect((await alertDeliveries(t)).length).toBe(deliveriesBefore);
    expect(await t.app.alertMail.runDue()).toBe(0);
  });

  it("the e-mail's link shows a page whose button pauses the alert; the link alone changes nothing", async () => {
    const mail = t.mailbox.received.find((m) => m.to[0] === starter.email && /Rate alert/.test(m.raw))!;
    const link = new URL(pauseLinkOf(mail));
    const browser = new Browser(t);
    const opened = await browser.get(`${link.pathname}${link.search}`);
    expect(opened.status).toBe(200);
    const page = await opened.text();
    expect(page).toContain('USD rises to 0.66 or above');
    expect(page).toContain('<button type="submit">Pause alert</button>');
    const still = await t.json('/api/alerts', { key: starter.key });
    expect(still.body.alerts[0].isActive).toBe(true);

    const token = link.searchParams.get('token')!;
    // another alert's id with this signature, and a signature cut short, are not links we sent
    for (const forged of [`${ids.usdAbove}.${token.split('.')[1]}`, token.slice(0, -2)]) {
      expect((await browser.post('/dashboard/alerts/pause', { token: forged })).status).toBe(400);
    }
    const paused = await browser.post('/dashboard/alerts/pause', { token });
    expect(paused.status).toBe(200);
    expect(await paused.text()).toContain('Alert paused');
    const after = await t.json('/api/alerts', { key: starter.key });
    expect(after.body.alerts[0]).toMatchObject({ id: ids.starterUsd, isActive: false, triggerCount: 1 });
    // from another site, the button is refused
    const crossSite = await browser.post('/dashboard/alerts/pause', { token }, { 'Sec-Fetch-Site': 'cross-site' });
    expect(crossSite.status).toBe(403);
  });

  it('a test sends a sample on each channel and counts as no firing', async () => {
    const before = (await firings(t)).length;
    const mails = t.mailbox.received.length;
    const res = await t.json(`/api/alerts/${ids.eurBelowExactly}/test`, { key: business.key, method: 'POST' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.email).toMatchObject({ to: business.email, sent: true });
    expect(res.body.webhooks.map((w: any) => w.subscriptionId).sort()).toEqual([subs['/all'], subs['/eur']].sort());
    const tests = receiver.deliveries.filter((d) => d.headers['x-exchangerates-event'] === 'rates.test' && d.json.alert);
    expect(tests).toHaveLength(2);
    expect(tests[0]!.json).toMatchObject({ event: 'rates.test', alert: { id: ids.eurBelowExactly, currency: 'EUR' }, date: NEXT.date });
    expect(tests[0]!.signatureValid).toBe(true);
    const mail = t.mailbox.received[mails]!;
    expect(mail.raw).toContain('Subject: [Test] Rate alert: EUR');
    expect((await firings(t)).length).toBe(before);
    const listed = await t.json('/api/alerts', { key: business.key });
    expect(listed.body.alerts.find((a: any) => a.id === ids.eurBelowExactly).triggerCount).toBe(1);
  });

  it("counts the firings in the operators' analytics, per rate day and condition, and in /metrics", async () => {
    const result = await t.operator(
      graphql(`
        query {
          alertFirings(from: "2026-05-01", to: "2026-05-31") {
            total
            byDay {
              date
              firings
            }
            byCondition {
              condition
              firings
            }
            byDayAndCondition {
              date
              condition
              firings
            }
          }
          before: alertFirings(from: "2026-05-01", to: "2026-05-13") {
            total
            byCondition {
              condition
              firings
            }
          }
        }
      `),
    );
    expect(result.errors).toBeUndefined();
    expect(result.data!.alertFirings).toEqual({
      total: 5,
      byDay: [{ date: NEXT.date, firings: 5 }],
      byCondition: [
        { condition: 'above', firings: 3 },
        { condition: 'below', firings: 1 },
        { condition: 'change_pct', firings: 1 },
      ],
      byDayAndCondition: [
        { date: NEXT.date, condition: 'above', firings: 3 },
        { date: NEXT.date, condition: 'below', firings: 1 },
        { date: NEXT.date, condition: 'change_pct', firings: 1 },
      ],
    });
    expect(result.data!.before.total).toBe(0);
    const refused = await t.operator(graphql('query { alertFirings(from: "2026-05-31", to: "2026-05-01") { total } }'));
    expect(refused.errors?.[0]?.extensions?.code).toBe('bad_request');

    const metrics = await scrape(t);
    expect(seriesValue(metrics, 'audrates_alert_firings_total', { condition: 'above' })).toBe(3);
    expect(seriesValue(metrics, 'audrates_alert_firings_total', { condition: 'change_pct' })).toBe(1);
    expect(seriesValue(metrics, 'audrates_alert_emails_total', { outcome: 'sent' })).toBeGreaterThanOrEqual(3);
  });

  it("another account's alert is not found, to the test as to every change", async () => {
    for (const [method, path] of [
      ['POST', `/api/alerts/${ids.usdAbove}/test`],
      ['DELETE', `/api/alerts/${ids.usdAbove}`],
    ] as const) {
      expectError(await t.json(path, { key: starter.key, method }), 404, 'not_found');
    }
    expectError(
      await t.json(`/api/alerts/${ids.usdAbove}`, { key: starter.key, method: 'PATCH', headers: JSON_HEADERS, body: { isActive: false } }),
      404,
      'not_found',
    );
  });
});
