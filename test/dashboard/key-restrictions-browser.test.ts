// Key restrictions in a real browser: Debian's Chromium generates a key in one click on the Keys
// page, restricts it to one endpoint with a monthly cap in the form folded under it, sees a call to
// another endpoint refused (403 key_restricted) and the list show the restriction and the cap's
// use, removes every restriction and sees the call succeed, then gives it today's expiry and sees
// it listed as Expired while the API refuses it. Screenshots go to test-artifacts/dashboard/ for a
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

it.skipIf(!CHROMIUM_AVAILABLE)(
  'restricts a key under it on the Keys page, sees a restricted call refused, an expired key listed as such, and removes the restrictions',
  async () => {
    const email = 'restrict@example.com';
    await t.operator(graphql('mutation($e: EmailAddress!) { createAccount(email: $e, plan: professional) { id } }'), { e: email });
    const client = new Browser(t);
    await client.signIn(t, email);
    const context = await contextWithCookies(chromium, client.cookies, served.origin, { viewport: { width: 1280, height: 1000 } });
    const page = await context.newPage();
    // a machine shared with other work answers slowly at times
    page.setDefaultTimeout(90_000);
    const call = async (path: string, key: string) => {
      const response = await fetch(`${served.origin}${path}`, { headers: { Authorization: `Bearer ${key}` } });
      return { status: response.status, body: (await response.json()) as { error?: { type: string; info: string } } };
    };

    // Generating is one click: no restriction form above the list.
    await page.goto(`${served.origin}/dashboard/keys`);
    expect(await page.getByLabel('Monthly cap').count()).toBe(0);
    await page.screenshot({ path: `${SCREENSHOTS}key-restrictions-1-generate.png`, fullPage: true });
    await page.getByRole('button', { name: 'Generate key' }).click();
    const key = await page.locator('#new-key').inputValue();
    expect(key).toMatch(/^[a-z]+[0-9]*_[A-Za-z0-9]{56}$/);
    expect((await call('/latest', key)).status).toBe(200);

    // Its restrictions fold under it: a cap of 5 and historical rates only.
    await page.goto(`${served.origin}/dashboard/keys`);
    const item = page.locator('li.key').filter({ hasText: key.slice(-4) });
    const editor = item.locator('details');
    expect(await editor.getAttribute('open')).toBeNull();
    await item.getByText(/^Change the restrictions of/).click();
    await editor.getByLabel('Monthly cap').fill('5');
    await editor.getByLabel(/^historical/).check();
    // a Professional key is offered what its plan allows: no bulk export
    expect(await editor.getByLabel(/^export/).count()).toBe(0);
    await page.screenshot({ path: `${SCREENSHOTS}key-restrictions-2-edit.png`, fullPage: true });
    await editor.getByRole('button', { name: 'Save restrictions' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    const listed = await page
      .locator('li.key')
      .filter({ hasText: key.slice(-4) })
      .textContent();
    expect(listed).toContain('Only historical');
    expect(listed).toMatch(/Cap \d of 5 used this period/);
    await page.screenshot({ path: `${SCREENSHOTS}key-restrictions-3-listed.png`, fullPage: true });

    // Every process applies the change at once: the restricted call fails now, the allowed one works.
    const refused = await call('/latest', key);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ type: 'key_restricted', info: expect.stringMatching(/may not call latest/) });
    expect((await call('/2026-05-11', key)).status).toBe(200);

    // A refused change says why, in the form's words, and changes nothing.
    await item.getByText(/^Change the restrictions of/).click();
    await editor.getByLabel('Allowed IP ranges').fill('203.0.113.0/33');
    await editor.getByRole('button', { name: 'Save restrictions' }).click();
    expect(await page.getByRole('alert').textContent()).toMatch(/^Allowed IP ranges: '203\.0\.113\.0\/33' is not a CIDR range/);
    await page.screenshot({ path: `${SCREENSHOTS}key-restrictions-4-refused.png`, fullPage: true });
    expect((await call('/2026-05-11', key)).status).toBe(200);

    // Remove them all.
    await page.getByRole('button', { name: 'Remove all restrictions' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    expect(
      await page
        .locator('li.key')
        .filter({ hasText: key.slice(-4) })
        .locator('dt:text-is("Restrictions") + dd')
        .textContent(),
    ).toBe('None');
    expect((await call('/latest', key)).status).toBe(200);
    await page.screenshot({ path: `${SCREENSHOTS}key-restrictions-5-cleared.png`, fullPage: true });

    // Expiring today (UTC): the API refuses it at once, and the list says Expired, not Active.
    await item.getByText(/^Change the restrictions of/).click();
    await editor.getByLabel('Expires on').fill('2026-05-12');
    await editor.getByRole('button', { name: 'Save restrictions' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    expect((await call('/latest', key)).status).toBe(401);
    const expired = page.locator('li.key').filter({ hasText: key.slice(-4) });
    expect(await expired.locator('.state').textContent()).toBe('Expired');
    expect(await expired.textContent()).toContain('Expired 12 May 2026, 00:00 UTC (10:00 in Sydney)');
    await page.screenshot({ path: `${SCREENSHOTS}key-restrictions-6-expired.png`, fullPage: true });
    await context.close();
  },
);
