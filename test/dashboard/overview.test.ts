// The overview page: the account, its plan's limits, this period's count with the same numbers as
// the X-RateLimit-* headers, and the data's freshness.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Browser, pageText, startDashboardApp, type DashboardApp } from '../support/dashboard.js';

let t: DashboardApp;
beforeAll(async () => {
  t = await startDashboardApp({ now: '2026-05-12T03:00:00Z' });
  await t.importFixture('f11.1-data.csv');
});
afterAll(() => t.close());

/** The text of the <dd> after the <dt> with this label. */
function fact(html: string, label: string): string {
  const match = new RegExp(`<dt>${label.replace(/[()]/g, '\\$&')}</dt><dd>(.*?)</dd>`).exec(html);
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
  // what differs by plan beyond requests and history: alerts, reports, bulk export
  expect(fact(html, 'Rate alerts')).toBe('3, by e-mail');
  expect(fact(html, 'Reports (period averages)')).toBe('Periods starting within the last 30 days');
  expect(fact(html, 'Bulk export')).toBe('None');
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
  expect(fact(html, 'Webhooks')).toBe('None');
  expect(fact(html, 'Rate alerts')).toBe('None');
  expect(fact(html, 'Reports (period averages)')).toBe('None');
  expect(fact(html, 'Bulk export')).toBe('None');
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

/** A fragment's text as a person reads it: the spaces the tags leave before punctuation taken out. */
const words = (html: string) =>
  pageText(html)
    .trim()
    .replace(/ ([;.,])/g, '$1');

it('says in words when new rates are due, and when they are late, with the zone of every time', async () => {
  const browser = new Browser(t);
  await browser.signIn(t, 'freshness@example.com');
  const at = async (iso: string) => {
    t.setNow(iso);
    return (await browser.get('/dashboard')).text();
  };
  // 13:00 in Sydney: the rates of the 11th are the newest, the 12th's are due at 16:00
  let html = await at('2026-05-12T03:00:00Z');
  expect(words(fact(html, 'New rates'))).toBe('Due 12 May 2026, 06:00 UTC (16:00 in Sydney)');
  expect(fact(html, 'New rates')).toContain('datetime="2026-05-12T06:00:00.000Z"');
  expect(words(fact(html, 'Newest rates'))).toBe('11 May 2026');
  expect(html).not.toContain('The rates are late');
  // 17:00: due an hour ago, not late yet
  html = await at('2026-05-12T07:00:00Z');
  expect(words(fact(html, 'New rates'))).toBe(
    "Were due 12 May 2026, 06:00 UTC (16:00 in Sydney); the Reserve Bank's rates usually arrive within two hours of that",
  );
  expect(fact(html, 'Service')).toBe('Operational');
  // 19:00: more than two hours late
  html = await at('2026-05-12T09:00:00Z');
  expect(words(fact(html, 'New rates'))).toBe('Were due 12 May 2026, 06:00 UTC (16:00 in Sydney) and have not arrived');
  expect(fact(html, 'Service')).toBe('Degraded');
  const text = words(html);
  expect(text).toContain(
    'The rates are late: new rates were due 12 May 2026, 06:00 UTC (16:00 in Sydney) and have not arrived. Until they do, the API answers with the newest rates it has, from 11 May 2026, and marks those answers as late.',
  );
  expect(text).not.toMatch(/X-[A-Z][A-Za-z-]+/);
  // every time on the page is written one way: UTC, then Sydney's reading; a date is a date
  for (const time of html.match(/<time [^>]*>[^<]*<\/time>/g)!) {
    expect(time).toMatch(
      /\d{1,2} [A-Z][a-z]+ \d{4}, \d\d:\d\d UTC \((\d{1,2} [A-Z][a-z]+ \d{4}, )?\d\d:\d\d in Sydney\)<\/time>$|datetime="\d{4}-\d\d-\d\d">[^<]+<\/time>$/,
    );
  }
  t.setNow('2026-05-12T03:00:00Z');
});
