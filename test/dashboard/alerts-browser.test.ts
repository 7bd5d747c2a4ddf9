// The Alerts page in a real browser (Debian's Chromium), at phone width and with the keyboard only:
// create an alert, send a test, see it fire at the next publication in the latest firings, pause
// and resume it, and delete it after the confirmation. The screenshots go to
// test-artifacts/dashboard/ for a person to look at.
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser as Chromium, Page } from 'playwright-core';
import { graphql } from '../../src/graphql.js';
import type { RbaDay } from '../../src/rba/index.js';
import { CHROMIUM_AVAILABLE, contextWithCookies, launchChromium, serveOnLoopback, type ServedHandler } from '../support/browser.js';
import { Browser, startDashboardApp, type DashboardApp } from '../support/dashboard.js';

const SCREENSHOTS = new URL('../../test-artifacts/dashboard/', import.meta.url).pathname;
const day = (date: string, usd: string): RbaDay => ({ date, rates: { USD: usd, EUR: '0.6012', TWI: '61.40' } });

let t: DashboardApp;
let chromium: Chromium;
let served: ServedHandler;

beforeAll(async () => {
  if (!CHROMIUM_AVAILABLE) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  t = await startDashboardApp({ now: '2026-05-12T07:00:00Z' });
  await t.importTable({ format: 'csv', publicationDate: null, days: [day('2026-05-11', '0.6480'), day('2026-05-12', '0.6490')] });
  served = await serveOnLoopback(t.app.web);
  chromium = await launchChromium();
}, 60_000);

afterAll(async () => {
  await chromium?.close();
  await served?.close();
  await t?.close();
});

/**
 * Presses Tab until the focused element is the one `matches` (a function's source, run in the
 * page) picks: the keyboard alone reaches it. Fails after `limit` presses.
 */
async function focus(page: Page, matches: string, limit = 40): Promise<void> {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(`(${matches})(document.activeElement)`)) return;
  }
  throw new Error(`Tab never reached ${matches}`);
}

const byId = (id: string) => `(el) => el?.id === ${JSON.stringify(id)}`;
const byText = (text: string) => `(el) => (el?.getAttribute('aria-label') ?? el?.textContent ?? '').trim().startsWith(${JSON.stringify(text)})`;

it.skipIf(!CHROMIUM_AVAILABLE)(
  'creates, tests, fires, pauses and deletes an alert with the keyboard at phone width',
  async () => {
    const email = 'alerts-browser@example.com';
    await t.operator(graphql('mutation($e: EmailAddress!) { createAccount(email: $e, plan: starter) { id } }'), { e: email });
    const client = new Browser(t);
    await client.signIn(t, email);

    const context = await contextWithCookies(chromium, client.cookies, served.origin, {
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    const page = await context.newPage();
    await page.goto(`${served.origin}/dashboard/alerts`);
    expect(await page.getByRole('link', { name: 'Alerts' }).getAttribute('aria-current')).toBe('page');
    expect(await page.getByRole('heading', { name: 'Alerts (0 of 3)' }).isVisible()).toBe(true);
    // the page fits the phone: nothing scrolls sideways
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    // A value the form refuses first, then a good one.
    await focus(page, byId('currency'));
    await page.keyboard.type('USD');
    await focus(page, byId('condition'));
    await page.keyboard.press('ArrowDown'); // "Falls to or below a rate" → back to "Rises…" below
    await page.keyboard.press('ArrowUp');
    await focus(page, byId('value'));
    await page.keyboard.type('0.1234567');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('at most 6 decimal places');
    await page.screenshot({ path: `${SCREENSHOTS}alerts-1-refused-phone.png`, fullPage: true });

    await focus(page, byId('value'));
    await page.keyboard.press('Control+A');
    await page.keyboard.type('0.65');
    await focus(page, byId('description'));
    await page.keyboard.type('invoice in USD');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Alerts (1 of 3)' }).waitFor();
    expect(await page.getByRole('heading', { name: 'USD rises to 0.65 or above' }).isVisible()).toBe(true);
    expect(await page.getByText('On the Starter plan alerts are sent by e-mail only.').isVisible()).toBe(true);

    // Send test: an e-mail, and no firing counted.
    await focus(page, byText('Send test of: USD rises to 0.65 or above'));
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Test sent' }).waitFor();
    expect(await page.getByRole('status').textContent()).toContain(`Test e-mail sent to ${email}`);
    expect((await t.mailbox.next()).raw).toContain('[Test] Rate alert: USD at 0.649');

    // The next publication crosses 0.65: the firing shows in the list and the latest firings.
    t.setNow('2026-05-13T07:00:00Z');
    await t.importTable({ format: 'csv', publicationDate: '2026-05-13', days: [day('2026-05-13', '0.6512')] });
    await page.goto(`${served.origin}/dashboard/alerts`);
    expect(await page.getByText('Latest firings (1)').isVisible()).toBe(true);
    const row = await page.getByRole('row').nth(1).textContent();
    expect(row).toMatch(/USD rises to 0\.65 or above.*0\.6512.*0\.649/);
    expect(await page.locator('dl.facts').textContent()).toContain('once');
    await page.screenshot({ path: `${SCREENSHOTS}alerts-2-fired-phone.png`, fullPage: true });

    // Pause, then resume.
    await focus(page, byText('Pause: USD rises to 0.65 or above'));
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Resume: USD rises to 0.65 or above' }).waitFor();
    expect(await page.locator('dl.facts').textContent()).toContain('Paused');
    await focus(page, byText('Resume: USD rises to 0.65 or above'));
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Pause: USD rises to 0.65 or above' }).waitFor();

    // Delete asks first; Cancel keeps it, Delete removes it.
    await focus(page, byText('Delete: USD rises to 0.65 or above'));
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Delete this alert?' }).waitFor();
    await page.screenshot({ path: `${SCREENSHOTS}alerts-3-delete-phone.png`, fullPage: true });
    await focus(page, byText('Delete'));
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Alerts (0 of 3)' }).waitFor();
    expect(await page.getByText('No alerts yet.').isVisible()).toBe(true);

    // and at desktop width, for a person to compare
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.screenshot({ path: `${SCREENSHOTS}alerts-4-desktop.png`, fullPage: true });
    await context.close();
  },
  60_000,
);
