// The dashboard's Reports page (issue 30) in Debian's Chromium: pick a financial year, read the
// table, download the CSV and the workbook and find them byte for byte equal to GET /averages's; with the keyboard
// only; at a phone's width. Each view and download counts one request, as the API call does; Free
// is told what a paid plan gives, Starter is refused a period outside its window, and neither
// counts. Screenshots go to test-artifacts/dashboard/ (not committed) for a person to look at.
import { mkdirSync, readFileSync } from 'node:fs';
import * as XLSX from '@e965/xlsx';
import type { Browser as Chromium, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishedPlaces } from '../../src/domain/currencies.js';
import { graphql } from '../../src/graphql.js';
import { launchChromium, serveOnLoopback, type ServedHandler } from '../support/browser.js';
import { CREATE_KEY } from '../support/app.js';
import { pageText, signedInBrowser, startDashboardApp, type DashboardApp } from '../support/dashboard.js';
import { storedCounts } from '../limits/support.js';

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const SCREENSHOTS = new URL('../../test-artifacts/dashboard/', import.meta.url).pathname;
// Wednesday 14 August 2024 in Sydney: FY2024 is over and in the store.
const NOW = '2024-08-14T03:00:00Z';

let t: DashboardApp;
let browser: Chromium;
let base: string;
let served: ServedHandler;

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  t = await startDashboardApp({ now: NOW });
  await t.importFixture('f11.1-fy2024.csv');
  served = await serveOnLoopback(t.app.web);
  base = served.origin;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await served?.close();
  await t?.close();
});

const shot = (page: Page, name: string) => page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });

/** Signs up from nothing, moves the account to `plan` as the operator does, and makes it a key. */
async function signUp(page: Page, email: string, plan: 'free' | 'starter' | 'professional'): Promise<string> {
  await page.goto(`${base}/dashboard`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('button', { name: 'Send sign-in link' }).click();
  await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
  const { link } = await t.mailbox.next();
  await page.goto(`${base}${new URL(link).pathname}${new URL(link).search}`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  if (plan !== 'free') {
    const changed = await t.operator(graphql('mutation($e: EmailAddress!, $p: Plan!) { setAccountPlan(email: $e, plan: $p) { plan } }'), { e: email, p: plan });
    expect(changed.errors).toBeUndefined();
  }
  const created = await t.operator(CREATE_KEY, { e: email });
  return created.data!.createApiKey.key;
}

const api = (path: string, key: string, accept = 'application/json') =>
  fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${key}`, Accept: accept } });
const used = async (email: string) => (await storedCounts(t, email)).monthlyUsed;

/** Presses Tab until the focused element's text or label is `name`, then `key` on it. */
async function tabTo(page: Page, name: string): Promise<void> {
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const el = document.activeElement as HTMLInputElement | null;
      return el ? (el.labels?.[0]?.textContent ?? el.textContent ?? '').trim() : '';
    });
    if (focused === name) return;
  }
  throw new Error(`Tab never reached ${name}`);
}

// a browser's steps on a machine shared with other work: more than the default 30 s
describe('the Reports page', { timeout: 120_000 }, () => {
  it('FY2024: the table, the months, and a CSV download equal to the API answer; each counts one request', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    const page = await context.newPage();
    const email = 'reports@example.com';
    const key = await signUp(page, email, 'professional');
    await page.getByRole('link', { name: 'Reports' }).click();
    await page.getByRole('heading', { name: 'Reports', level: 1 }).waitFor();
    await shot(page, 'reports-1-picker');
    const before = await used(email);
    expect(before).toBe(0); // opening the page shows only the picker: nothing counted
    // it opens on the newest period with rates (the store ends on 28 June 2024): FY2024, not FY2025
    expect(await page.getByLabel('Period').inputValue()).toBe('FY2024');
    expect(await page.locator('option[value="FY2025"]').count()).toBe(0);

    await page.getByRole('button', { name: 'Show figures' }).click();
    await page.getByRole('heading', { name: 'FY2024: 2023-07-01 to 2024-06-30' }).waitFor();
    await shot(page, 'reports-2-fy2024');
    expect(await used(email)).toBe(1);

    // the table holds the API's figures, one row per currency, written as its CSV writes them
    // (the mean with 6 places, the rates with the RBA's decimals: 0.6400, not 0.64)
    const table = (await (await api('/averages?period=FY2024', key, 'text/csv')).text()).trim().split('\n').slice(1);
    const rows = await page.getByRole('table', { name: 'Per currency, units that 1 AUD buys' }).locator('tbody tr').allInnerTexts();
    expect(rows).toEqual(
      table.map((line) => {
        const [code, mean, days, , , end, min, max] = line.split(',');
        return [code, mean, end, days, min, max].join('\t');
      }),
    );
    expect(rows.find((row) => row.startsWith('JPY'))).toMatch(/^JPY\t\d+\.\d{6}\t\d+\.\d{2}\t/);
    // EUR's end rate as the RBA published it on 28 June 2024, trailing zero included
    expect(rows.find((row) => row.startsWith('EUR'))).toMatch(/^EUR\t0\.\d{6}\t0\.5850\t/);
    // every published value with its series' decimals, every mean with 6
    for (const row of rows) {
      const [code, mean, end, , min, max] = row.split('\t');
      const places = publishedPlaces(code!);
      expect(mean, code).toMatch(/^\d+\.\d{6}$/);
      for (const value of [end, min, max]) expect(value, code).toMatch(places === 0 ? /^\d+$/ : new RegExp(`^\\d+\\.\\d{${places}}$`));
    }
    const byMonth = (await (await api('/averages?period=FY2024&interval=month', key, 'text/csv')).text()).trim().split('\n').slice(1);
    const months = await page.getByRole('table', { name: 'Average of each month' }).locator('tbody tr').allInnerTexts();
    expect(months).toHaveLength(12);
    const december = new Map(byMonth.filter((line) => line.startsWith('2023-12,')).map((line) => [line.split(',')[1]!, line.split(',')[2]!]));
    expect(months[5]).toBe(['2023-12', ...table.map((line) => december.get(line.split(',')[0]!) ?? '–')].join('\t'));

    // the months' table is wider than its card: it scrolls, says so, and keeps the month in view
    const scroller = page.locator('div[role="region"][aria-labelledby="months-title"]');
    const [scrollWidth, clientWidth] = await scroller.evaluate((el) => [el.scrollWidth, el.clientWidth]);
    expect(scrollWidth).toBeGreaterThan(clientWidth);
    expect(await page.locator('#months-hint').isVisible()).toBe(true);
    expect(await page.locator('#months-hint').textContent()).toMatch(/scroll the table sideways/);
    const monthCell = page.getByRole('table', { name: 'Average of each month' }).locator('tbody th').first();
    const box = (await scroller.boundingBox())!;
    const at = (await monthCell.boundingBox())!.x;
    await scroller.scrollIntoViewIfNeeded();
    await shot(page, 'reports-2a-months-start');
    await scroller.evaluate((el) => el.scrollTo({ left: 400 }));
    expect(await scroller.evaluate((el) => el.scrollLeft)).toBe(400);
    expect((await monthCell.boundingBox())!.x).toBe(at);
    expect(at).toBeGreaterThanOrEqual(box.x);
    await page.locator('#months-title').screenshot({ path: `${SCREENSHOTS}reports-2b-months-heading.png` });
    await scroller.screenshot({ path: `${SCREENSHOTS}reports-2c-months-scrolled.png` });

    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Download this table as CSV' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe('aud-averages_FY2024.csv');
    const csv = readFileSync(await file.path(), 'utf8');
    expect(csv).toBe(await (await api('/averages?period=FY2024', key, 'text/csv')).text());
    expect(csv.split('\n')[0]).toBe('code,mean,days,first_date,last_date,end_rate,min,max');

    const monthly = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Download the months as CSV' }).click();
    expect(readFileSync(await (await monthly).path(), 'utf8')).toBe(await (await api('/averages?period=FY2024&interval=month', key, 'text/csv')).text());
    // the workbook: byte for byte the API's, with the Source sheet
    const workbook = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Download this table as an Excel workbook' }).click();
    const book = await workbook;
    expect(book.suggestedFilename()).toBe('aud-averages_FY2024.xlsx');
    const bytes = readFileSync(await book.path());
    expect(bytes.equals(Buffer.from(await (await api('/averages?period=FY2024', key, XLSX_TYPE)).arrayBuffer()))).toBe(true);
    expect(XLSX.read(bytes).SheetNames).toEqual(['Averages', 'Source']);
    // the view, three downloads and five API calls
    expect(await used(email)).toBe(9);
    await context.close();
  });

  it('with the keyboard only: choose the financial year, show it, download it', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    const page = await context.newPage();
    const key = await signUp(page, 'reports-keyboard@example.com', 'professional');
    await page.goto(`${base}/dashboard`);
    await tabTo(page, 'Reports');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Reports', level: 1 }).waitFor();
    await tabTo(page, 'Period');
    // the picker opens on the newest financial year with rates, FY2024
    expect(await page.getByLabel('Period').inputValue()).toBe('FY2024');
    await tabTo(page, 'Show figures');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'FY2024: 2023-07-01 to 2024-06-30' }).waitFor();
    expect(await page.getByLabel('Period').inputValue()).toBe('FY2024');
    await tabTo(page, 'Download this table as CSV');
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).toBe('solid');
    await shot(page, 'reports-3-keyboard');
    const download = page.waitForEvent('download');
    await page.keyboard.press('Enter');
    expect(readFileSync(await (await download).path(), 'utf8')).toBe(await (await api('/averages?period=FY2024', key, 'text/csv')).text());
    await context.close();
  });

  it('at a phone width (375 px) nothing runs off the page; the tables scroll inside it', async () => {
    const context = await browser.newContext({ viewport: { width: 375, height: 667 }, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    await signUp(page, 'reports-phone@example.com', 'professional');
    await page.goto(`${base}/dashboard/reports?period=FY2024`);
    await page.getByRole('heading', { name: 'FY2024: 2023-07-01 to 2024-06-30' }).waitFor();
    await shot(page, 'reports-4-phone');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    const select = (await page.getByLabel('Period').boundingBox())!;
    expect(select.x + select.width).toBeLessThanOrEqual(375);
    // The wide table scrolls inside its card; its caption wraps to the card and stays in view while it scrolls.
    const scroller = page.locator('.table-scroll').first();
    const card = (await scroller.boundingBox())!;
    const caption = page.locator('caption', { hasText: 'Per currency, units that 1 AUD buys' });
    for (const left of [0, 200]) {
      await scroller.evaluate((element, to) => element.scrollTo({ left: to }), left);
      const box = (await caption.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(card.x);
      expect(box.x + box.width).toBeLessThanOrEqual(card.x + card.width);
    }
    await context.close();
  });

  it('Free sees what a paid plan gives and no figures; Starter is refused a year outside its window; neither counts', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signUp(page, 'reports-free@example.com', 'free');
    await page.goto(`${base}/dashboard/reports?period=FY2024`);
    await page.getByRole('heading', { name: 'Reports come with a paid plan' }).waitFor();
    await shot(page, 'reports-5-free');
    expect(await page.getByLabel('Period').count()).toBe(0);
    expect(await page.getByRole('table').count()).toBe(0);
    expect((await storedCounts(t, 'reports-free@example.com')).freeUsed).toBe(0);
    await context.close();

    const starter = await signedInBrowser(t, 'reports-starter@example.com');
    const changed = await t.operator(graphql('mutation($e: EmailAddress!) { setAccountPlan(email: $e, plan: starter) { plan } }'), {
      e: 'reports-starter@example.com',
    });
    expect(changed.errors).toBeUndefined();
    const refused = await starter.get('/dashboard/reports?period=FY2024');
    expect(refused.status).toBe(403);
    expect(pageText(await refused.text())).toMatch(/The Starter plan gives the last 30 days \(from 2024-07-15\)/);
    const bad = await starter.get('/dashboard/reports/csv?period=FY24');
    expect(bad.status).toBe(400);
    expect((await starter.get('/dashboard/reports/csv?period=2024-08&interval=week')).status).toBe(400);
    // August 2024 starts inside the window (from 2024-07-15) but has no rate day yet
    expect((await starter.get('/dashboard/reports?period=2024-08')).status).toBe(404);
    expect(await used('reports-starter@example.com')).toBe(0);
  });

  it('signed out, the page and the download send the browser to sign in', async () => {
    const response = await fetch(`${base}/dashboard/reports/csv?period=FY2024`, { redirect: 'manual' });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/dashboard');
  });
});
