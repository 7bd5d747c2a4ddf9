// The Alerts page as a browser without scripts meets it: plans without alerts see what a plan
// with them gives; forms need the session's CSRF token and the same origin; a refused alert comes
// back with what was sent and why; another account's alert is not found; a suspended account sees
// its alerts without their actions; a pause link that is not one we sent is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphql } from '../../src/graphql.js';
import { createAlert } from '../support/alerts.js';
import { Browser, pageText, signedInBrowser, startDashboardApp, type DashboardApp } from '../support/dashboard.js';

const SET_PLAN = graphql('mutation($e: EmailAddress!, $p: Plan!) { setAccountPlan(email: $e, plan: $p) { plan } }');
const SET_STATUS = graphql('mutation($e: EmailAddress!, $s: AccountStatus!) { setAccountStatus(email: $e, status: $s) { status } }');

let t: DashboardApp;
let accounts = 0;
beforeAll(async () => {
  t = await startDashboardApp({ now: '2026-05-12T03:00:00Z' });
  await t.importFixture('f11.1-data.csv');
});
afterAll(() => t?.close());

async function signedIn(plan: 'free' | 'starter' | 'professional'): Promise<{ browser: Browser; csrf: string; email: string }> {
  const email = `alerts-page-${++accounts}@example.test`;
  const browser = await signedInBrowser(t, email);
  if (plan !== 'free') expect((await t.operator(SET_PLAN, { e: email, p: plan })).errors).toBeUndefined();
  const csrf = Browser.csrfOf(await (await browser.get('/dashboard/alerts')).text());
  return { browser, csrf, email };
}

describe('the Alerts page', () => {
  it('on Free: what Starter gives, and no form', async () => {
    const { browser } = await signedIn('free');
    const text = pageText(await (await browser.get('/dashboard/alerts')).text());
    expect(text).toContain('Rate alerts come with the Starter plan and above');
    expect(text).not.toContain('Add alert');
  });

  it('creates an alert from the form, and gives a refused one back with the reason in words', async () => {
    const { browser, csrf } = await signedIn('professional');
    const refused = await browser.post('/dashboard/alerts', {
      csrf,
      currency: 'EUR',
      condition: 'below',
      value: '0.5x',
      channels: 'webhook',
      description: 'mine',
    });
    expect(refused.status).toBe(400);
    const html = await refused.text();
    expect(pageText(html)).toContain('Enter the value as a positive number, such as 0.69 or 1.5.');
    expect(html).toContain('value="0.5x"');
    expect(html).toMatch(/<option value="EUR" selected/);
    expect(html).toMatch(/id="channel-webhook"[^>]*checked/);
    expect(html).not.toMatch(/id="channel-email"[^>]*checked/);

    const none = await browser.post('/dashboard/alerts', { csrf, currency: 'EUR', condition: 'below', value: '0.5' });
    expect(pageText(await none.text())).toContain('Choose at least one way to send the alert.');

    const body = new URLSearchParams({ csrf, currency: 'EUR', condition: 'below', value: '0.5', description: 'euro low' });
    body.append('channels', 'email');
    body.append('channels', 'webhook');
    const created = await browser.request('/dashboard/alerts', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Sec-Fetch-Site': 'same-origin' },
      body: body.toString(),
    });
    expect(created.status).toBe(303);
    const text = pageText(await (await browser.get('/dashboard/alerts')).text());
    expect(text).toContain('EUR falls to 0.5 or below');
    expect(text).toContain('E-mail and Webhook');
    expect(text).toContain('Alerts (1 of 20)');
  });

  it('reads the currency in any case, as the API does', async () => {
    const { browser, csrf } = await signedIn('starter');
    const created = await browser.post('/dashboard/alerts', { csrf, currency: 'usd', condition: 'above', value: '0.7', channels: 'email' });
    expect(created.status).toBe(303);
    expect(pageText(await (await browser.get('/dashboard/alerts')).text())).toContain('USD rises to 0.7 or above');
  });

  it('refuses a forged form and a form from another site', async () => {
    const { browser, csrf } = await signedIn('starter');
    expect((await browser.post('/dashboard/alerts', { csrf: 'forged', currency: 'USD', condition: 'above', value: '1', channels: 'email' })).status).toBe(403);
    const crossSite = await browser.post(
      '/dashboard/alerts',
      { csrf, currency: 'USD', condition: 'above', value: '1', channels: 'email' },
      { 'Sec-Fetch-Site': 'cross-site' },
    );
    expect(crossSite.status).toBe(403);
    expect(pageText(await (await browser.get('/dashboard/alerts')).text())).toContain('No alerts yet.');
  });

  it("another account's alert: not found to delete, pause or test", async () => {
    const owner = await t.createKey('starter', `alerts-owner-${++accounts}@example.test`);
    const theirs = await createAlert(t, owner, { currency: 'USD', condition: 'above', value: '0.8', channels: ['email'] });
    const { browser, csrf } = await signedIn('starter');
    expect((await browser.get(`/dashboard/alerts/delete?id=${theirs}`)).status).toBe(404);
    expect((await browser.post('/dashboard/alerts/delete', { csrf, id: theirs })).status).toBe(404);
    expect((await browser.post('/dashboard/alerts/active', { csrf, id: theirs, active: 'false' })).status).toBe(404);
    expect((await browser.post('/dashboard/alerts/test', { csrf, id: theirs })).status).toBe(404);
    expect((await browser.post('/dashboard/alerts/active', { csrf, id: theirs, active: 'maybe' })).status).toBe(400);
  });

  it('a suspended account sees its alerts without their actions and cannot add one', async () => {
    const { browser, csrf, email } = await signedIn('starter');
    expect((await browser.post('/dashboard/alerts', { csrf, currency: 'USD', condition: 'above', value: '1', channels: 'email' })).status).toBe(303);
    expect((await t.operator(SET_STATUS, { e: email, s: 'suspended' })).errors).toBeUndefined();
    const html = await (await browser.get('/dashboard/alerts')).text();
    expect(pageText(html)).toContain('USD rises to 1 or above');
    expect(pageText(html)).toContain('The account is suspended');
    expect(html).not.toContain('Send test');
    expect((await browser.post('/dashboard/alerts', { csrf, currency: 'USD', condition: 'above', value: '2', channels: 'email' })).status).toBe(403);
  });

  it('a pause link that is not one we sent is refused, and one for a deleted alert is not found', async () => {
    const visitor = new Browser(t);
    expect((await visitor.get('/dashboard/alerts/pause?token=nothing')).status).toBe(400);
    expect((await visitor.get('/dashboard/alerts/pause')).status).toBe(400);
    const key = await t.createKey('starter', `alerts-gone-${++accounts}@example.test`);
    const id = await createAlert(t, key, { currency: 'USD', condition: 'above', value: '0.8', channels: ['email'] });
    const link = new URL(t.app.services.alertLinks.pauseUrl(id));
    expect((await visitor.get(`${link.pathname}${link.search}`)).status).toBe(200);
    await t.json(`/api/alerts/${id}`, { key, method: 'DELETE' });
    expect((await visitor.get(`${link.pathname}${link.search}`)).status).toBe(404);
    expect((await visitor.post('/dashboard/alerts/pause', { token: link.searchParams.get('token')! })).status).toBe(404);
  });
});
