// GraphiQL in a real browser (Debian's Chromium driven by playwright-core): every request the page
// makes stays on the internal origin (or is inline: data:, blob:); after signing in through the
// form, the cookie is HttpOnly and SameSite=Strict and a query run from the editor answers.
import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OPERATOR_TOKEN, startTestApp, type TestApp } from '../support/app.js';
import { CHROMIUM_AVAILABLE, launchChromium, serveOnLoopback, type ServedHandler } from '../support/browser.js';

const SCREENSHOTS = new URL('../../test-artifacts/', import.meta.url);

let t: TestApp;
let served: ServedHandler;
let origin: string;
let browser: Browser;
beforeAll(async () => {
  if (!CHROMIUM_AVAILABLE) return;
  t = await startTestApp();
  await t.importFixture('f11.1-data.csv');
  served = await serveOnLoopback((req, res) => void t.app.internal(req, res));
  origin = served.origin;
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await served?.close();
  await t?.close();
});

it.skipIf(!CHROMIUM_AVAILABLE)('loads GraphiQL from this origin only, signs in with the form and runs a query', { timeout: 120_000 }, async () => {
  const requested: string[] = [];
  const failures: string[] = [];
  const openPage = async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.on('request', (request) => requested.push(request.url()));
    page.on('requestfailed', (request) => failures.push(`${request.url()} ${request.failure()?.errorText}`));
    return { context, page };
  };

  // Without signing in the page loads (its schema introspection is refused).
  const anonymous = await openPage();
  const refused = anonymous.page.waitForResponse((response) => response.url() === `${origin}/graphql` && response.request().method() === 'POST');
  await anonymous.page.goto(`${origin}/graphql`);
  await anonymous.page.waitForSelector('.graphiql-container', { timeout: 60_000 });
  expect((await refused).status()).toBe(401);
  await anonymous.context.close();

  // A fresh browser (GraphiQL keeps its tabs in local storage) signs in, then opens GraphiQL.
  const { context, page } = await openPage();
  await page.goto(`${origin}/sign-in`);
  await page.fill('input[name="token"]', OPERATOR_TOKEN);
  await Promise.all([page.waitForURL(`${origin}/graphql`), page.click('button[type="submit"]')]);
  const [cookie] = await context.cookies();
  expect(cookie).toMatchObject({ name: 'operator_session', httpOnly: true, sameSite: 'Strict', path: '/' });
  expect(cookie!.value).not.toContain(OPERATOR_TOKEN);

  await page.waitForSelector('.graphiql-execute-button', { timeout: 60_000 });
  const answered = page.waitForResponse(
    (response) =>
      response.url() === `${origin}/graphql` && response.request().method() === 'POST' && response.request().postData()?.includes('ServiceStatus') === true,
  );
  await page.click('.graphiql-execute-button');
  const response = await answered;
  expect(response.status()).toBe(200);
  expect(await response.json()).toEqual({
    data: { serviceStatus: { state: expect.any(String), newestRateDate: '2026-05-11', stale: expect.any(Boolean), nextUpdateExpected: expect.any(String) } },
  });
  await page.waitForFunction(() => document.querySelector('.graphiql-response')?.textContent?.includes('2026-05-11'), undefined, { timeout: 30_000 });
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: new URL('graphiql.png', SCREENSHOTS).pathname });

  expect(requested.length).toBeGreaterThan(2);
  expect(requested.filter((url) => !url.startsWith(`${origin}/`) && !/^(data|blob):/.test(url))).toEqual([]);
  expect(failures).toEqual([]);
  await context.close();
});
