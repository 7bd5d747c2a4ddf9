// Redeliver in a real browser: Debian's Chromium on the Webhooks page resends a publication's
// delivery that the receiver refused, after the receiver is fixed; the page shows the answer and
// the receiver gets the same delivery id with a valid signature. The screenshot goes to
// test-artifacts/dashboard/ for a person to look at.
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser as Chromium } from 'playwright-core';
import { graphql } from '../../src/graphql.js';
import type { RbaDay } from '../../src/rba/index.js';
import { CHROMIUM_AVAILABLE, contextWithCookies, launchChromium, serveOnLoopback, type ServedHandler } from '../support/browser.js';
import { OPENSSL_AVAILABLE } from '../support/certificate.js';
import { Browser, startDashboardApp, type DashboardApp } from '../support/dashboard.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const SCREENSHOTS = new URL('../../test-artifacts/dashboard/', import.meta.url).pathname;
const day = (date: string): RbaDay => ({ date, rates: { USD: '0.6543', EUR: '0.6012', TWI: '61.40' } });
const RUNS = OPENSSL_AVAILABLE && CHROMIUM_AVAILABLE;

let t: DashboardApp;
let receiver: WebhookReceiver;
let chromium: Chromium;
let served: ServedHandler;

beforeAll(async () => {
  if (!RUNS) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  receiver = await startWebhookReceiver();
  t = await startDashboardApp({
    now: '2026-05-12T07:00:00Z',
    config: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
    webhookNetwork: { ca: [receiver.ca], timeoutMs: 5_000 },
  });
  await t.importTable({ format: 'csv', publicationDate: null, days: [day('2026-05-11')] });
  served = await serveOnLoopback(t.app.web);
  chromium = await launchChromium();
}, 60_000);

afterAll(async () => {
  await chromium?.close();
  await served?.close();
  await t?.close();
  await receiver?.close();
});

it.skipIf(!RUNS)('resends a refused delivery from the delivery list once the receiver is fixed', async () => {
  const email = 'redeliver@example.com';
  await t.operator(graphql('mutation($e: EmailAddress!) { createAccount(email: $e, plan: professional) { id } }'), { e: email });
  const client = new Browser(t);
  await client.signIn(t, email);
  const csrf = Browser.csrfOf(await (await client.get('/dashboard/webhooks')).text());
  const created = await client.post('/dashboard/webhooks', { csrf, url: receiver.url('/mended') });
  expect(created.status).toBe(200);
  receiver.setSecret('/mended', /value="(whsec_[A-Za-z0-9_-]{43})"/.exec(await created.text())![1]!);
  receiver.behave('/mended', { status: 500 });
  await t.importTable({ format: 'csv', publicationDate: '2026-05-12', days: [day('2026-05-12')] });
  await t.app.deliveries.runDue();
  const deliveryId = receiver.deliveries[0]!.headers['x-exchangerates-delivery']!;

  // The browser carries the session the sign-in gave.
  const context = await contextWithCookies(chromium, client.cookies, served.origin, { viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${served.origin}/dashboard/webhooks`);
  await page.getByText('Recent deliveries (1)').click();
  expect(await page.getByRole('row').nth(1).textContent()).toMatch(/rates\.published.*HTTP 500/);
  receiver.behave('/mended', { status: 200 });
  await page.getByRole('button', { name: `Redeliver ${deliveryId}` }).click();
  await page.getByRole('heading', { name: 'Redelivered' }).waitFor();
  expect(await page.getByRole('status').textContent()).toContain('answered HTTP 200');
  await page.getByText('Recent deliveries (2)').click();
  expect(await page.getByRole('row').nth(1).textContent()).toMatch(/rates\.published.*2HTTP 200/);
  await page.screenshot({ path: `${SCREENSHOTS}redeliver-1-redelivered.png`, fullPage: true });

  expect(receiver.deliveries.map((d) => [d.headers['x-exchangerates-delivery'], d.signatureValid, d.answeredWith])).toEqual([
    [deliveryId, true, 500],
    [deliveryId, true, 200],
  ]);
  await context.close();
});
