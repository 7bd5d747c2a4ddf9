// Key restrictions in a real browser: Debian's Chromium generates a key with a monthly cap on the
// Keys page, restricts it to one endpoint on its Restrictions page, sees a call to another endpoint
// refused (403 key_restricted) and the list show the restriction and the cap's use, then removes
// every restriction and sees the call succeed. Screenshots go to test-artifacts/dashboard/ for a
// person to look at.
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser as Chromium } from 'playwright-core';
import { graphql } from '../../src/graphql.js';
import type { RbaDay } from '../../src/rba/index.js';
import { CHROMIUM_AVAILABLE, contextWithCookies, launchChromium, serveOnLoopback, type ServedHandler } from '../support/browser.js';
import { Browser, startDashboardApp, type DashboardApp } from '../support/dashboard.js';

const SCREENSHOTS = new URL('../../test-artifacts/dashboard/', import.meta.url).pathname;
const day = (date: string): RbaDay => ({ date, rates: { USD: '0.6543', EUR: '0.6012', TWI: '61.40' } });

let t: DashboardApp;
let chromium: Chromium;
let served: ServedHandler;

beforeAll(async () => {
  if (!CHROMIUM_AVAILABLE) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  t = await startDashboardApp({ now: '2026-05-12T07:00:00Z' });
  await t.importTable({ format: 'csv', publicationDate: null, days: [day('2026-05-08'), day('2026-05-11')] });
  served = await serveOnLoopback(t.app.web);
  chromium = await launchChromium();
}, 60_000);

afterAll(async () => {
  await chromium?.close();
  await served?.close();
  await t?.close();
});

it.skipIf(!CHROMIUM_AVAILABLE)('restricts a key on the Keys page, sees a restricted call refused, and removes the restriction', async () => {
  const email = 'restrict@example.com';
  await t.operator(graphql('mutation($e: EmailAddress!) { createAccount(email: $e, plan: professional) { id } }'), { e: email });
  const client = new Browser(t);
  await client.signIn(t, email);
  const context = await contextWithCookies(chromium, client.cookies, served.origin, { viewport: { width: 1280, height: 1000 } });
  const page = await context.newPage();
  const call = async (path: string, key: string) => {
    const response = await fetch(`${served.origin}${path}`, { headers: { Authorization: `Bearer ${key}` } });
    return { status: response.status, body: (await response.json()) as { error?: { type: string; info: string } } };
  };

  // Generate a key with a cap of 5 requests a period.
  await page.goto(`${served.origin}/dashboard/keys`);
  await page.getByLabel('Monthly cap').fill('5');
  await page.screenshot({ path: `${SCREENSHOTS}key-restrictions-1-generate.png`, fullPage: true });
  await page.getByRole('button', { name: 'Generate key' }).click();
  const key = await page.locator('#new-key').inputValue();
  expect(key).toMatch(/^[a-z]+[0-9]*_[A-Za-z0-9]{56}$/);
  expect((await call('/latest', key)).status).toBe(200);

  // Restrict it to historical rates.
  await page.goto(`${served.origin}/dashboard/keys`);
  const row = page.getByRole('row').filter({ hasText: key.slice(-4) });
  expect(await row.textContent()).toContain('Cap 1 of 5 used this period');
  await row.getByRole('link', { name: /Edit the restrictions/ }).click();
  await page.getByRole('heading', { name: /Restrictions of/ }).waitFor();
  expect(await page.getByLabel('Monthly cap').inputValue()).toBe('5');
  await page.getByLabel(/^historical/).check();
  await page.screenshot({ path: `${SCREENSHOTS}key-restrictions-2-edit.png`, fullPage: true });
  await page.getByRole('button', { name: 'Save restrictions' }).click();
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
  const listed = await page
    .getByRole('row')
    .filter({ hasText: key.slice(-4) })
    .textContent();
  expect(listed).toContain('Only historical');
  expect(listed).toContain('Cap 1 of 5');
  await page.screenshot({ path: `${SCREENSHOTS}key-restrictions-3-listed.png`, fullPage: true });

  // Every process applies the change at once: the restricted call fails now, the allowed one works.
  const refused = await call('/latest', key);
  expect(refused.status).toBe(403);
  expect(refused.body.error).toMatchObject({ type: 'key_restricted', info: expect.stringMatching(/may not call latest/) });
  expect((await call('/2026-05-11', key)).status).toBe(200);

  // A refused change says why, in the form's words, and changes nothing.
  await page
    .getByRole('row')
    .filter({ hasText: key.slice(-4) })
    .getByRole('link', { name: /Edit the restrictions/ })
    .click();
  await page.getByLabel('Allowed IP ranges').fill('203.0.113.0/33');
  await page.getByRole('button', { name: 'Save restrictions' }).click();
  expect(await page.getByRole('alert').textContent()).toMatch(/^Allowed IP ranges: '203\.0\.113\.0\/33' is not a CIDR range/);
  await page.screenshot({ path: `${SCREENSHOTS}key-restrictions-4-refused.png`, fullPage: true });
  expect((await call('/2026-05-11', key)).status).toBe(200);

  // Remove them all.
  await page.getByRole('button', { name: 'Remove all restrictions' }).click();
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
  expect(
    await page
      .getByRole('row')
      .filter({ hasText: key.slice(-4) })
      .textContent(),
  ).toContain('None');
  expect((await call('/latest', key)).status).toBe(200);
  await page.screenshot({ path: `${SCREENSHOTS}key-restrictions-5-cleared.png`, fullPage: true });
  await context.close();
});
