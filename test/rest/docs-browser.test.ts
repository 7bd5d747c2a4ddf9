// GET /docs in a real browser (Debian's Chromium driven by playwright-core): the page renders the
// service's OpenAPI document with the bundled Scalar renderer, and every request it makes goes to
// the service's own origin (or is inline: data:, blob:), fonts included. The renderer validates the
// document as it loads it and says what it finds on the console: any warning or error fails the
// test. A screenshot is saved in test-artifacts/ (git-ignored).
import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { CHROMIUM_AVAILABLE, launchChromium, serveOnLoopback, type ServedHandler } from '../support/browser.js';

const SCREENSHOTS = new URL('../../test-artifacts/', import.meta.url);

let t: TestApp;
let served: ServedHandler;
let origin: string;
let browser: Browser;
beforeAll(async () => {
  if (!CHROMIUM_AVAILABLE) return;
  t = await startTestApp();
  served = await serveOnLoopback(t.app.web);
  origin = served.origin;
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await served?.close();
  await t?.close();
});

it.skipIf(!CHROMIUM_AVAILABLE)('renders the API reference from this origin only', { timeout: 120_000 }, async () => {
  const requested: string[] = [];
  const failures: string[] = [];
  const complaints: string[] = [];
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.on('request', (request) => requested.push(request.url()));
  page.on('requestfailed', (request) => failures.push(`${request.url()} ${request.failure()?.errorText}`));
  // Content Security Policy violations, the renderer's document validation, anything else it complains about
  // (with the objects it logs written out, so that a failure says what the renderer found)
  const said: Promise<void>[] = [];
  page.on('console', (message) => {
    if (message.type() !== 'error' && message.type() !== 'warning') return;
    const args = Promise.all(message.args().map((arg) => arg.jsonValue().catch(() => 'a value that does not serialise')));
    said.push(args.then((values) => void complaints.push(`${message.type()}: ${message.text()} ${JSON.stringify(values)} at ${message.location().url}`)));
  });
  page.on('response', (response) => {
    if (response.status() >= 400) complaints.push(`${response.status()} ${response.url()}`);
  });
  page.on('pageerror', (error) => complaints.push(`pageerror: ${error.message}`));

  await page.goto(`${origin}/docs`);
  // The guide's headings and the operations are rendered from /openapi.json.
  await page.getByText('Quote direction and precision').first().waitFor({ timeout: 60_000 });
  await page.getByText('How each currency moved over a date range').first().waitFor({ timeout: 30_000 });
  await page.waitForTimeout(3_000); // whatever the page asks for after rendering is asked by then
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: new URL('docs.png', SCREENSHOTS).pathname });

  // The code sample of an operation sends its example's parameters, optional ones included (a
  // period for /averages: without it the request is 400), so what it shows is what it asks.
  await page.getByText('Period averages: the figures accountants file').first().click();
  await page
    .getByText(/averages\?period=FY2025&symbols=USD%2CEUR%2CJPY/)
    .first()
    .waitFor({ timeout: 30_000 });
  await page.screenshot({ path: new URL('docs-averages.png', SCREENSHOTS).pathname });

  expect(requested).toContain(`${origin}/openapi.json`);
  expect(requested.filter((url) => !url.startsWith(`${origin}/`) && !/^(data|blob):/.test(url))).toEqual([]);
  expect(failures).toEqual([]);
  await Promise.all(said);
  expect(complaints).toEqual([]);
  await context.close();
});
