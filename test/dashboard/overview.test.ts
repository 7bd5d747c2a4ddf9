// The overview page: the account, its plan's limits, this period's count with the same numbers as
// the X-RateLimit-* headers, and the data's freshness.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Browser, startDashboardApp, type DashboardApp } from '../support/dashboard.js';

let t: DashboardApp;
beforeAll(async () => {
  t = await startDashboardApp({ now: '2026-05-12T03:00:00Z' });
  await t.importFixture('f11.1-data.csv');
});
afterAll(() => t.close());

/** The text of the <dd> after the <dt> with this label. */
function fact(html: string, label: string): string {
  const match = new RegExp(`<dt>${label}</dt><dd>(.*?)</dd>`).exec(html);
  if (!match) throw new Error(`no ${label} on the page`);
  return match[1]!;
}

it('shows the period count, remaining and reset date the API headers give', async () => {
  const key = await t.createKey('starter', 'counting@example.com');
  let headers: Headers | undefined;
  for (let i = 0; i < 3; i++) headers = (await t.request('/latest', { key })).headers;
  const browser = new Browser(t);
  await browser.signIn(t, 'Counting@example.com');
  const html = await (await browser.get('/dashboard')).text();
  expect(fact(html, 'Plan')).toBe('Starter (<a href="/dashboard/plan">compare plans or ask for another</a>)');
  expect(fact(html, 'Used')).toBe('3');
  expect(fact(html, 'Remaining')).toBe(Number(headers!.get('x-ratelimit-remaining-monthly')).toLocaleString('en-AU'));
  expect(fact(html, 'Remaining')).toBe('4,997');
  expect(fact(html, 'Limit')).toBe(headers!.get('x-ratelimit-limit-monthly')!.replace(/\B(?=(\d{3})+$)/g, ','));
  expect(fact(html, 'Resets')).toContain(`datetime="${headers!.get('x-ratelimit-reset')}"`);
  expect(fact(html, 'Requests')).toBe('5,000 a month');
  expect(fact(html, 'Historical rates')).toBe('The last 30 days');
  expect(fact(html, 'Time series')).toBe('Up to 7 days');
  expect(fact(html, 'Newest rates')).toBe('<time datetime="2026-05-11">11 May 2026</time>');
  expect(fact(html, 'Service')).toBe('Operational');
});

it('shows Free as a one-time allowance that never resets', async () => {
  const key = await t.createKey('free', 'free@example.com');
  await t.request('/latest', { key });
  const browser = new Browser(t);
  await browser.signIn(t, 'free@example.com');
  const html = await (await browser.get('/dashboard')).text();
  expect(fact(html, 'Used')).toBe('1');
  expect(fact(html, 'Remaining')).toBe('299');
  expect(fact(html, 'Resets')).toContain('Never');
  expect(fact(html, 'Historical rates')).toBe('None');
  expect(fact(html, 'Webhook subscriptions')).toBe('None');
});

it('counts a stored count of an earlier period as 0 in the new one', async () => {
  const key = await t.createKey('professional', 'period@example.com');
  await t.request('/latest', { key });
  const browser = new Browser(t);
  await browser.signIn(t, 'period@example.com');
  const before = await (await browser.get('/dashboard')).text();
  expect(fact(before, 'Used')).toBe('1');
  const resetsAt = new Date(/datetime="([^"]+)"/.exec(fact(before, 'Resets'))![1]!);
  // the account signed up today, its billing day: the period lasts a month
  expect(resetsAt.toISOString()).toBe('2026-06-12T00:00:00.000Z');
  // visits every few days up to an hour before the reset; a session lasts 30 days at most, so the
  // browser signs in again before its session's end
  let signedInAt = Date.parse('2026-05-12T03:00:00Z');
  for (let at = signedInAt; at < resetsAt.getTime() - 3_600_000;) {
    at = Math.min(at + 5 * 86_400_000, resetsAt.getTime() - 3_600_000);
    t.setNow(new Date(at).toISOString());
    if (at - signedInAt >= 25 * 86_400_000) {
      await browser.signIn(t, 'period@example.com');
      signedInAt = at;
    }
    expect(fact(await (await browser.get('/dashboard')).text(), 'Used')).toBe('1');
  }
  t.setNow(resetsAt.toISOString());
  const html = await (await browser.get('/dashboard')).text();
  expect(fact(html, 'Used')).toBe('0');
  expect(fact(html, 'Remaining')).toBe('50,000');
  t.setNow('2026-05-12T03:00:00Z');
});
