// The Plan page: the five plans side by side with the account's own marked, and how to ask for
// another (a mail to SUPPORT_EMAIL, or PLAN_CHANGE_URL); the favicon every page links.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { PlanPage } from '../../src/dashboard/plan-page.js';
import { renderPage } from '../../src/dashboard/layout.js';
import { graphql } from '../../src/graphql.js';
import { Browser, pageText, signedInBrowser, startDashboardApp, type DashboardApp } from '../support/dashboard.js';

let t: DashboardApp;
beforeAll(async () => {
  t = await startDashboardApp({ config: { SUPPORT_EMAIL: 'help@rates.example' } });
});
afterAll(() => t.close());

it('lists the five plans side by side, marks the account’s own, and offers a mail asking for each other plan', async () => {
  const browser = await signedInBrowser(t, 'planner@example.com');
  const overview = await (await browser.get('/dashboard')).text();
  expect(overview).toContain('<a href="/dashboard/plan">Plan</a>');
  const response = await browser.get('/dashboard/plan');
  expect(response.status).toBe(200);
  const html = await response.text();
  const text = pageText(html);
  expect(html).toContain('<a href="/dashboard/plan" aria-current="page">Plan</a>');
  expect(text).toContain('Your account is on the Free plan.');
  expect(text).toMatch(
    /Free Your plan Price Free Requests 300 once, never reset API keys 1 Historical rates None Time series None Webhooks None Rate alerts None Reports \(period averages\) None Bulk export None /,
  );
  expect(text).toContain(
    'Starter Price A$29 a month Requests 5,000 a month API keys 1 Historical rates The last 30 days Time series Up to 7 days Webhooks None Rate alerts 3, by e-mail Reports (period averages) Periods starting within the last 30 days Bulk export None',
  );
  expect(text).toContain(
    'Professional Price A$79 a month Requests 50,000 a month API keys 5 Historical rates Full history from 2018 Time series Up to 90 days Webhooks 3 subscriptions Rate alerts 20, by e-mail or webhook Reports (period averages) Any period from 2018 Bulk export None',
  );
  expect(text).toContain('Business Price A$299 a month');
  expect(text).toMatch(
    /Business .*? Rate alerts 100, by e-mail or webhook Reports \(period averages\) Any period from 2018 Bulk export The whole history in one file \(\/export\)/,
  );
  expect(text).toContain('Enterprise Price Agreed with you Requests 5,000,000 a month');
  expect(html.match(/aria-current="true"/g)).toHaveLength(1);
  expect(html).toMatch(/<article class="card plan current" aria-labelledby="plan-free" aria-current="true">/);
  // one link per other plan, a mail already written; none for the plan the account has
  expect(html).not.toContain('Ask for the Free plan');
  const ask = /<a href="([^"]+)" aria-label="Ask for the Business plan">/.exec(html)![1]!.replace(/&amp;/g, '&');
  const mail = new URL(ask);
  expect(mail.protocol).toBe('mailto:');
  expect(mail.pathname).toBe('help@rates.example');
  expect(mail.searchParams.get('subject')).toBe('Plan change to Business');
  expect(mail.searchParams.get('body')).toBe('Please move the account planner@example.com to the Business plan.');
  expect(text).toContain('Write to help@rates.example with the plan you want');

  // the operator moves the account: the page follows at once
  await t.operator(graphql('mutation { setAccountPlan(email: "planner@example.com", plan: business) { plan } }'));
  const after = await (await browser.get('/dashboard/plan')).text();
  expect(after).toMatch(/<article class="card plan current" aria-labelledby="plan-business" aria-current="true">/);
  expect(after).toContain('aria-label="Ask for the Free plan"');
  expect(after).not.toContain('aria-label="Ask for the Business plan"');
});

it('links Webhooks’ upgrade note to the plan page, and sends a signed-out visitor to sign in', async () => {
  const browser = await signedInBrowser(t, 'hookless@example.com');
  const html = await (await browser.get('/dashboard/webhooks')).text();
  expect(html).toContain('<a href="/dashboard/plan#change">Compare the plans and ask for Professional</a>');
  const anonymous = await new Browser(t).get('/dashboard/plan');
  expect(anonymous.status).toBe(303);
  expect(anonymous.headers.get('location')).toBe('/dashboard');
});

it('links PLAN_CHANGE_URL when the deployment has one, and says who to ask when it names neither', () => {
  const assets = { stylesheet: '/s.css', script: '/c.js', icon: '/i.svg' };
  const frame = { email: 'a@example.com', status: 'active' as const, csrfToken: 'x', current: 'plan' as const };
  const withUrl = renderPage(PlanPage({ assets, frame, current: 'starter', contact: { url: 'https://rates.example/plans', email: null } }));
  expect(withUrl).toContain('<a href="https://rates.example/plans" aria-label="Ask for the Professional plan">');
  expect(withUrl).toContain('<a href="https://rates.example/plans">Ask for a plan change</a>');
  expect(withUrl).not.toContain('mailto:');
  const neither = pageText(renderPage(PlanPage({ assets, frame, current: 'starter', contact: { url: null, email: null } })));
  expect(neither).toContain('Plans are changed by the people who run this service: ask them for the plan you want.');
  expect(neither).not.toContain('Ask for Professional');
});

it('refuses a PLAN_CHANGE_URL that is no web address and a SUPPORT_EMAIL that is no e-mail address', () => {
  expect(() => parseConfig({ PLAN_CHANGE_URL: 'ftp://rates.example/plans' })).toThrow('PLAN_CHANGE_URL must be an http:// or https:// URL');
  expect(() => parseConfig({ PLAN_CHANGE_URL: 'plans' })).toThrow('PLAN_CHANGE_URL must be an http:// or https:// URL');
  expect(() => parseConfig({ SUPPORT_EMAIL: 'help' })).toThrow('SUPPORT_EMAIL must be an e-mail address');
  const config = parseConfig({ PLAN_CHANGE_URL: 'https://rates.example/plans', SUPPORT_EMAIL: 'help@rates.example' });
  expect([config.PLAN_CHANGE_URL, config.SUPPORT_EMAIL]).toEqual(['https://rates.example/plans', 'help@rates.example']);
});

it('serves the icon at /favicon.ico and under its hashed name, which every page links', async () => {
  const browser = new Browser(t);
  const page = await (await browser.get('/dashboard')).text();
  const linked = /<link rel="icon" type="image\/svg\+xml" href="([^"]+)"\/?>/.exec(page)![1]!;
  expect(linked).toMatch(/^\/dashboard\/static\/favicon-[0-9a-f]{16}\.svg$/);
  for (const path of ['/favicon.ico', '/favicon.ico?v=2', linked]) {
    const icon = await browser.get(path);
    expect(icon.status, path).toBe(200);
    expect(icon.headers.get('content-type'), path).toBe('image/svg+xml');
    expect(await icon.text(), path).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  }
  // a refusal page links it too
  expect(await (await browser.get('/dashboard/nowhere')).text()).toContain(`<link rel="icon" type="image/svg+xml" href="${linked}"`);
  // the rest of the public API is not the dashboard's
  expect((await browser.get('/favicon.icon')).headers.get('content-type')).toContain('application/json');
});
