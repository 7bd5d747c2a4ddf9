// The dashboard in a real browser: Debian's Chromium driven by playwright-core against the app on a
// real listener, the sign-in mail received over SMTP. Screenshots of every page go to
// test-artifacts/dashboard/ (not committed) for a person to look at.
import { mkdirSync } from 'node:fs';
import { pino } from 'pino';
import { chromium, type Browser as Chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LISTENER_LIMITS } from '../../src/http/limits.js';
import { createListener, listen } from '../../src/http/server.js';
import { startDashboardApp, type DashboardApp } from '../support/dashboard.js';

const SCREENSHOTS = new URL('../../test-artifacts/dashboard/', import.meta.url).pathname;

let t: DashboardApp;
let browser: Chromium;
let base: string;
let server: ReturnType<typeof createListener>;

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  t = await startDashboardApp();
  await t.importFixture('f11.1-data.csv');
  server = createListener(t.app.web.node, { limits: LISTENER_LIMITS, logger: pino({ level: 'silent' }) });
  base = await listen(server, 0, '127.0.0.1');
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await t?.close();
});

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });
}

/** Signs up from nothing: the form, the mail, the link, the button. */
async function signUp(page: Page, email: string, prefix: string): Promise<void> {
  await page.goto(`${base}/dashboard`);
  await shot(page, `${prefix}-1-sign-in`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('button', { name: 'Send sign-in link' }).click();
  await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
  await shot(page, `${prefix}-2-check-email`);
  const { link } = await t.mailbox.next();
  await page.goto(`${base}${new URL(link).pathname}${new URL(link).search}`);
  await shot(page, `${prefix}-3-confirm`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  await shot(page, `${prefix}-4-overview`);
}

it('signs up, generates a key that works against /latest, and revokes it so it answers 401', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await signUp(page, 'browser@example.com', 'desktop');
  expect(await page.textContent('main')).toContain('browser@example.com');

  await page.getByRole('link', { name: 'Keys' }).click();
  await page.getByRole('button', { name: 'Generate key' }).click();
  const key = await page.getByLabel('API key').inputValue();
  expect(key).toMatch(/^[a-z]+_[A-Za-z0-9]{56}$/);
  await expect(page.getByRole('button', { name: 'Copy' }).isVisible()).resolves.toBe(true);
  await shot(page, 'desktop-5-key-generated');
  expect((await fetch(`${base}/latest`, { headers: { Authorization: `Bearer ${key}` } })).status).toBe(200);

  await page.getByRole('link', { name: /^Revoke / }).click();
  await shot(page, 'desktop-6-revoke-confirm');
  await page.getByRole('button', { name: 'Revoke' }).click();
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
  await shot(page, 'desktop-7-keys-after-revoke');
  const refused = await fetch(`${base}/latest`, { headers: { Authorization: `Bearer ${key}` } });
  expect(refused.status).toBe(401);
  expect(((await refused.json()) as { error: { type: string } }).error.type).toBe('invalid_api_key');

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('button', { name: 'Send sign-in link' }).waitFor();
  await context.close();
});

it('works at a phone-sized viewport', async () => {
  const context = await browser.newContext({ viewport: { width: 375, height: 667 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  await signUp(page, 'phone@example.com', 'phone');
  await page.getByRole('link', { name: 'Keys' }).click();
  await page.getByRole('button', { name: 'Generate key' }).click();
  await page.getByLabel('API key').waitFor();
  await shot(page, 'phone-5-key-generated');
  // nothing wider than the screen but the keys table, which scrolls in its own box
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await context.close();
});
