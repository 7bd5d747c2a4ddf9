// The dashboard in a real browser: Debian's Chromium driven by playwright-core against the app on a
// real listener, the sign-in mail received over SMTP, webhooks sent to a real HTTPS receiver whose
// certificate the app trusts (private targets allowed, D34 in docs/decisions.md). Once with the
// mouse, once with the keyboard only, once at a phone's size. Screenshots of every page go to
// test-artifacts/dashboard/ (not committed) for a person to look at.
import { mkdirSync } from 'node:fs';
import type { Browser as Chromium, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium, serveOnLoopback, type ServedHandler } from '../support/browser.js';
import { OPENSSL_AVAILABLE } from '../support/certificate.js';
import { startDashboardApp, type DashboardApp } from '../support/dashboard.js';
import { graphql } from '../../src/graphql.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const SCREENSHOTS = new URL('../../test-artifacts/dashboard/', import.meta.url).pathname;

let t: DashboardApp;
let receiver: WebhookReceiver;
let browser: Chromium;
let base: string;
let served: ServedHandler;

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  // The receiver's certificate is made with openssl: without it, only the tests that need no receiver run.
  if (OPENSSL_AVAILABLE) receiver = await startWebhookReceiver();
  t = await startDashboardApp({
    config: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', SUPPORT_EMAIL: 'help@rates.example' },
    ...(OPENSSL_AVAILABLE ? { webhookNetwork: { ca: [receiver.ca], timeoutMs: 5_000 } } : {}),
  });
  await t.importFixture('f11.1-data.csv');
  served = await serveOnLoopback(t.app.web);
  base = served.origin;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await served?.close();
  await t?.close();
  await receiver?.close();
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

it.skipIf(!OPENSSL_AVAILABLE)('works at a phone-sized viewport', async () => {
  const context = await browser.newContext({ viewport: { width: 375, height: 667 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  await signUp(page, 'phone@example.com', 'phone');
  await page.getByRole('link', { name: 'Keys' }).click();
  await page.getByRole('button', { name: 'Generate key' }).click();
  await page.getByLabel('API key').waitFor();
  await shot(page, 'phone-5-key-generated');
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  // each key is a block of labelled lines on a phone: its status is on screen, not in a column scrolled out of sight
  for (const shown of [page.locator('li.key .state', { hasText: 'Active' }), page.getByRole('link', { name: /^Revoke / })]) {
    const box = (await shown.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(375);
  }
  expect((await fetch(`${base}/latest`, { headers: { Authorization: `Bearer ${await page.getByLabel('API key').inputValue()}` } })).status).toBe(200);
  await t.app.usage.flush();

  await page.getByRole('link', { name: 'Usage' }).click();
  await page.getByRole('heading', { name: 'Requests per day', level: 2 }).waitFor();
  await page.getByText('The numbers per day').click();
  await shot(page, 'phone-6-usage');
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);

  await page.getByRole('link', { name: 'Webhooks' }).click();
  await page.getByRole('heading', { name: 'Webhooks come with the Professional plan and above' }).waitFor();
  await shot(page, 'phone-7-webhooks-free');
  await upgrade('phone@example.com');
  await page.reload();
  await page.getByLabel('URL').fill(receiver.url('/phone'));
  await page.getByRole('button', { name: 'Add subscription' }).click();
  await page.getByLabel('Signing secret').waitFor();
  await page.getByRole('button', { name: `Send test to ${receiver.url('/phone')}` }).click();
  await page.getByRole('heading', { name: 'Test delivered' }).waitFor();
  await page.getByText('Recent deliveries (1)').click();
  await shot(page, 'phone-8-webhooks');
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await context.close();
});

/** Signs an account up to Professional, as the operator does: webhooks and five keys. */
async function upgrade(email: string): Promise<void> {
  const changed = await t.operator(graphql('mutation($e: EmailAddress!) { setAccountPlan(email: $e, plan: professional) { plan } }'), { e: email });
  expect(changed.errors).toBeUndefined();
}

it.skipIf(!OPENSSL_AVAILABLE)(
  'creates a webhook subscription to an HTTPS receiver, sends a test from the page, and the usage chart counts the requests made',
  async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signUp(page, 'hooks@example.com', 'hooks');
    await upgrade('hooks@example.com');

    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Subscriptions (0 of 3)' }).waitFor();
    await shot(page, 'hooks-5-webhooks-empty');
    await page.getByLabel('URL').fill(receiver.url('/browser'));
    await page.getByLabel('Currencies (optional)').fill('usd, eur');
    await page.getByLabel('Description (optional)').fill('Browser test');
    await page.getByRole('button', { name: 'Add subscription' }).click();
    const secret = await page.getByLabel('Signing secret').inputValue();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    receiver.setSecret('/browser', secret);
    await expect(page.getByRole('button', { name: 'Copy' }).isVisible()).resolves.toBe(true);
    await shot(page, 'hooks-6-subscription-created');

    await page.getByRole('button', { name: `Send test to ${receiver.url('/browser')}` }).click();
    await page.getByRole('heading', { name: 'Test delivered' }).waitFor();
    expect(await page.getByRole('status').textContent()).toContain('answered HTTP 200');
    const delivered = receiver.deliveries.filter((d) => d.path === '/browser');
    expect(delivered.map((d) => [d.signatureValid, d.json?.event])).toEqual([[true, 'rates.test']]);
    expect(Object.keys(delivered[0]!.json.rates).sort()).toEqual(['EUR', 'USD']);
    expect(await page.content()).not.toContain(secret);
    await page.getByText('Recent deliveries (1)').click();
    expect(await page.getByRole('row').nth(1).textContent()).toMatch(/rates\.test.*HTTP 200/);
    await shot(page, 'hooks-7-test-sent');

    await page.getByRole('button', { name: `Pause ${receiver.url('/browser')}` }).click();
    await page.getByText('Paused').waitFor();
    await page.getByRole('link', { name: `Delete ${receiver.url('/browser')}` }).click();
    await page.getByRole('heading', { name: 'Delete this subscription?' }).waitFor();
    await shot(page, 'hooks-8-delete-confirm');
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No subscriptions yet.').waitFor();

    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByRole('button', { name: 'Generate key' }).click();
    const key = await page.getByLabel('API key').inputValue();
    for (let i = 0; i < 7; i++) expect((await fetch(`${base}/latest?symbols=USD`, { headers: { Authorization: `Bearer ${key}` } })).status).toBe(200);
    expect((await fetch(`${base}/latest?symbols=XYZ`, { headers: { Authorization: `Bearer ${key}` } })).status).toBe(400);
    await t.app.usage.flush(); // the recorder writes every few seconds; the test does not wait for it

    await page.getByRole('link', { name: 'Usage' }).click();
    await page.getByRole('heading', { name: 'Requests per day', level: 2 }).waitFor();
    await shot(page, 'hooks-9-usage');
    expect(await page.locator('rect.bar.current title').allTextContents()).toContain('This period, 12 May: 8 requests');
    await page.getByText('The numbers per day').click();
    expect(await page.locator('table').first().textContent()).toContain('12 May 20268');
    expect(await page.getByRole('table', { name: 'By outcome' }).textContent()).toMatch(/Success \(2xx\)7.*Client error \(4xx\)1/);
    await shot(page, 'hooks-10-usage-numbers');
    await context.close();
  },
);

/** The text of the fact labelled `label` (a <dd> after its <dt>) on the page. */
async function factOn(page: Page, label: string): Promise<string> {
  return (await page.locator(`dt:text-is("${label}") + dd`).first().textContent())!.trim();
}

it('shows the quota count the API headers give, the refused requests apart, times with their zone, and the plans, on a desktop and a phone', async () => {
  const desktop = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await desktop.newPage();
  await signUp(page, 'numbers@example.com', 'numbers');
  await t.operator(graphql('mutation { setAccountPlan(email: "numbers@example.com", plan: starter) { plan } }'));
  await page.getByRole('link', { name: 'Keys' }).click();
  await page.getByRole('button', { name: 'Generate key' }).click();
  const key = await page.getByLabel('API key').inputValue();
  const call = (path: string) => fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${key}` } });
  let counted: Response | undefined;
  for (const path of ['/latest', '/latest/USD', '/2026-05-11', '/latest?symbols=EUR', '/2026-05-11/JPY']) {
    counted = await call(path);
    expect(counted.status, path).toBe(200);
  }
  // refused: a mistyped code, a date outside Starter's 30 days; neither counts
  for (const [path, status] of [
    ['/latest?symbols=XYZ', 400],
    ['/2024-01-05', 403],
  ] as const) {
    expect((await call(path)).status, path).toBe(status);
  }
  const limit = Number(counted!.headers.get('x-ratelimit-limit-monthly'));
  const remaining = Number(counted!.headers.get('x-ratelimit-remaining-monthly'));
  const reset = counted!.headers.get('x-ratelimit-reset')!;
  expect([limit, remaining]).toEqual([5000, 4995]);
  await t.app.usage.flush();

  const format = (n: number) => n.toLocaleString('en-AU');
  const expectQuota = async (where: string) => {
    expect(await factOn(page, 'Used'), where).toBe(format(limit - remaining));
    expect(await factOn(page, 'Remaining'), where).toBe(format(remaining));
    expect(await factOn(page, 'Limit'), where).toBe(format(limit));
    expect(await factOn(page, 'Refused, not counted'), where).toBe('2');
    const resets = page.locator('dt:text-is("Resets") + dd time');
    expect(await resets.getAttribute('datetime'), where).toBe(reset);
    // 00:00 UTC on the billing day is 10:00 in Sydney in June (AEST)
    expect(await resets.textContent(), where).toBe('12 June 2026, 00:00 UTC (10:00 in Sydney)');
  };
  await page.getByRole('link', { name: 'Overview' }).click();
  await expectQuota('overview');
  expect(await factOn(page, 'New rates')).toBe('Due 12 May 2026, 06:00 UTC (16:00 in Sydney)');
  await shot(page, 'quota-1-overview');

  await page.getByRole('link', { name: 'Usage' }).click();
  await expectQuota('usage');
  const byEndpoint = await page.getByRole('table', { name: 'By endpoint' }).textContent();
  for (const path of ['/latest', '/latest/{currency}', '/{date}', '/{date}/{currency}']) expect(byEndpoint).toContain(path);
  expect(byEndpoint).not.toMatch(/RateDay|LatestCurrency/);
  expect(await page.getByRole('table', { name: 'By outcome' }).textContent()).toMatch(/Success \(2xx\)5.*Client error \(4xx\)2/);
  await shot(page, 'quota-2-usage');

  await page.getByRole('link', { name: 'Keys' }).click();
  // (a key's creation is stamped by the database's clock, not the test's)
  expect(await page.locator('li.key dt:text-is("Created") + dd time').first().textContent()).toMatch(
    /^\d{1,2} [A-Z][a-z]+ \d{4}, \d\d:\d\d UTC \((\d{1,2} [A-Z][a-z]+ \d{4}, )?\d\d:\d\d in Sydney\)$/,
  );
  expect(await factOn(page, 'Last used')).toBe('12 May 2026 (Sydney date)');
  await shot(page, 'quota-3-keys');

  await page.getByRole('link', { name: 'Plan', exact: true }).click();
  await page.getByRole('heading', { name: 'Plan', level: 1 }).waitFor();
  const current = page.locator('article[aria-current="true"]');
  expect(await current.getByRole('heading').textContent()).toBe('Starter');
  expect(await current.textContent()).toContain('Your plan');
  // side by side on a desktop: the five cards on one row
  const tops = await page.locator('article.plan').evaluateAll((cards) => cards.map((c) => c.getBoundingClientRect().top));
  expect(new Set(tops).size).toBe(1);
  expect(await page.getByRole('link', { name: 'Ask for the Professional plan' }).getAttribute('href')).toMatch(/^mailto:/);
  await shot(page, 'quota-4-plan');

  // the icon every page links is served, and so is /favicon.ico
  const icon = await page.locator('link[rel="icon"]').getAttribute('href');
  for (const path of [icon!, '/favicon.ico']) {
    const answer = await page.request.get(`${base}${path}`);
    expect([answer.status(), answer.headers()['content-type']], path).toEqual([200, 'image/svg+xml']);
  }
  const cookies = await desktop.cookies();
  await desktop.close();

  // the same account on a phone: the same numbers, nothing wider than the screen, the plans one under another
  const phone = await browser.newContext({ viewport: { width: 375, height: 667 }, isMobile: true, hasTouch: true });
  await phone.addCookies(cookies);
  const small = await phone.newPage();
  for (const [path, name] of [
    ['/dashboard', 'quota-5-phone-overview'],
    ['/dashboard/usage', 'quota-6-phone-usage'],
    ['/dashboard/plan', 'quota-7-phone-plan'],
  ] as const) {
    await small.goto(`${base}${path}`);
    expect(await small.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(375);
    if (path !== '/dashboard/plan') expect(await factOn(small, 'Used'), path).toBe(format(limit - remaining));
    await shot(small, name);
  }
  const lefts = await small.locator('article.plan').evaluateAll((cards) => cards.map((c) => c.getBoundingClientRect().left));
  expect(new Set(lefts).size).toBe(1);
  await phone.close();
}, 120_000);

/** Presses Tab until the focused element is the one named, then `key` on it: no mouse. */
async function pressOn(page: Page, name: string | RegExp, key: 'Enter' | 'Space' = 'Enter'): Promise<void> {
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      return el ? (el.getAttribute('aria-label') ?? (el as HTMLInputElement).labels?.[0]?.textContent ?? el.textContent ?? '').trim() : '';
    });
    if (typeof name === 'string' ? focused === name : name.test(focused)) {
      await page.keyboard.press(key);
      return;
    }
  }
  throw new Error(`Tab never reached ${String(name)}`);
}

/** Tabs to the field labelled `label` and types `text` into it. */
async function typeInto(page: Page, label: string, text: string): Promise<void> {
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((l) => (document.activeElement as HTMLInputElement | null)?.labels?.[0]?.textContent?.trim() === l, label)) {
      await page.keyboard.type(text);
      return;
    }
  }
  throw new Error(`Tab never reached the field ${label}`);
}

it.skipIf(!OPENSSL_AVAILABLE)('does the whole journey with the keyboard only', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${base}/dashboard`);
  await typeInto(page, 'E-mail', 'keyboard@example.com');
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
  const { link } = await t.mailbox.next();
  await page.goto(`${base}${new URL(link).pathname}${new URL(link).search}`);
  await pressOn(page, 'Sign in');
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  await upgrade('keyboard@example.com');
  // focus is visible where it lands
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).toBe('solid');

  await pressOn(page, 'Keys');
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
  await pressOn(page, 'Generate key', 'Space');
  const key = await page.getByLabel('API key').inputValue();
  expect((await fetch(`${base}/latest`, { headers: { Authorization: `Bearer ${key}` } })).status).toBe(200);
  await pressOn(page, /^Revoke /);
  await page.getByRole('heading', { name: /^Revoke / }).waitFor();
  await pressOn(page, 'Revoke', 'Space');
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
  expect((await fetch(`${base}/latest`, { headers: { Authorization: `Bearer ${key}` } })).status).toBe(401);
  await shot(page, 'keyboard-1-keys');

  await pressOn(page, 'Webhooks');
  await page.getByRole('heading', { name: 'Subscriptions (0 of 3)' }).waitFor();
  await typeInto(page, 'URL', receiver.url('/keyboard'));
  await page.keyboard.press('Enter');
  const secret = await page.getByLabel('Signing secret').inputValue();
  receiver.setSecret('/keyboard', secret);
  await pressOn(page, `Send test to ${receiver.url('/keyboard')}`, 'Space');
  await page.getByRole('heading', { name: 'Test delivered' }).waitFor();
  expect(receiver.deliveries.filter((d) => d.path === '/keyboard').map((d) => d.signatureValid)).toEqual([true]);
  await pressOn(page, 'Recent deliveries (1)', 'Enter');
  expect(await page.locator('details').first().getAttribute('open')).toBe('');
  await shot(page, 'keyboard-2-webhooks');

  await pressOn(page, 'Usage');
  await page.getByRole('heading', { name: 'Usage', level: 1 }).waitFor();
  await pressOn(page, 'Sign out');
  await page.getByRole('button', { name: 'Send sign-in link' }).waitFor();
  await context.close();
});

it('fits the navigation on one line at 1280 px, even beside a long address', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await signUp(page, 'a.rather.long.address.for.the.header@accounts.example.com', 'nav');
  for (const path of ['/dashboard', '/dashboard/keys', '/dashboard/reports', '/dashboard/plan']) {
    await page.goto(`${base}${path}`);
    const links = await page
      .locator('header nav a')
      .evaluateAll((all) => all.map((a) => a.getBoundingClientRect()).map((r) => ({ top: r.top, bottom: r.bottom })));
    expect(
      links.map((box) => box.top),
      path,
    ).toEqual(Array(7).fill(links[0]!.top));
    // the brand, the address and Sign out share the nav's line
    const line = { top: links[0]!.top, bottom: links[0]!.bottom };
    for (const other of ['header .brand', 'header .who', 'header button']) {
      const box = (await page.locator(other).boundingBox())!;
      expect(box.y, `${path} ${other}`).toBeLessThan(line.bottom);
      expect(box.y + box.height, `${path} ${other}`).toBeGreaterThan(line.top);
    }
    // the address gives way, whole in its title
    expect(await page.locator('header .who').getAttribute('title')).toBe('a.rather.long.address.for.the.header@accounts.example.com');
  }
  await page.locator('header').screenshot({ path: `${SCREENSHOTS}nav-1280.png` });
  await shot(page, 'nav-1280-plan');
  await context.close();
});
