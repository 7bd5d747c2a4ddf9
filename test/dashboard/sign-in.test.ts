// Signing in to the dashboard by e-mailed link (D31), through the public handler, with the mail
// received by a real SMTP server and the app's clock moved for expiry. The tests share one app: each
// starts at the same instant, as a client address of its own with e-mail addresses of its own (so
// no earlier test's links count against its limits), and checks the tables and the mail against
// what they held at its start.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Browser, PUBLIC_URL, startDashboardApp, type BrowserOptions, type DashboardApp } from '../support/dashboard.js';
import { graphql } from '../../src/graphql.js';

let t: DashboardApp;
beforeAll(async () => {
  t = await startDashboardApp();
});
afterAll(() => t?.close());

let client = '';
let clients = 0;
let accountsAtStart: Account[] = [];
let mailsAtStart = 0;
beforeEach(async () => {
  t.setNow('2026-05-12T03:00:00Z');
  client = `127.0.1.${++clients}`;
  accountsAtStart = await accounts();
  mailsAtStart = t.mailbox.received.length;
  t.mailbox.skipReceived();
});

/** A browser on this test's client address. */
const newBrowser = (options: BrowserOptions = {}) => new Browser(t, { address: client, ...options });

type Account = { email: string; plan: string };
const byEmail = (a: Account, b: Account) => (a.email < b.email ? -1 : 1);

async function accounts(): Promise<Account[]> {
  return (await t.db.selectFrom('accounts').select(['email', 'plan']).execute()).sort(byEmail);
}

/** The accounts are those at the test's start and `made`. */
async function expectAccounts(...made: Account[]) {
  expect(await accounts()).toEqual([...accountsAtStart, ...made].sort(byEmail));
}

/** The mails sent since the test's start. */
const mailsSent = () => t.mailbox.received.slice(mailsAtStart);

const sessions = () => t.db.selectFrom('dashboard_sessions').selectAll().orderBy('token_hash').execute();

function expectPageHeaders(response: Response) {
  expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(response.headers.get('content-security-policy')).toContain("default-src 'self'");
  expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  expect(response.headers.get('cache-control')).toBe('no-store');
  expect(response.headers.get('referrer-policy')).toBe('no-referrer');
}

async function linkTokenFor(browser: Browser, email: string): Promise<string> {
  expect((await browser.post('/dashboard/sign-in-link', { email })).status).toBe(200);
  return new URL((await t.mailbox.next()).link).searchParams.get('token')!;
}

describe('sign-in page', () => {
  it('shows the e-mail form without a session, with the page headers and no inline script', async () => {
    const response = await newBrowser().get('/dashboard');
    expect(response.status).toBe(200);
    expectPageHeaders(response);
    const html = await response.text();
    expect(html).toMatch(/<label for="email">E-mail<\/label>/);
    expect(html).toContain('Send sign-in link');
    expect(html).not.toContain('<script');
    const stylesheet = /href="(\/dashboard\/static\/style-[0-9a-f]{16}\.css)"/.exec(html)![1]!;
    const css = await newBrowser().get(stylesheet);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(css.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('answers unknown dashboard paths with a 404 page and other methods with 405', async () => {
    const browser = newBrowser();
    expect((await browser.get('/dashboard/nope')).status).toBe(404);
    const wrong = await browser.request('/dashboard', { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });
});

describe('the whole flow', () => {
  it('mails a link, opens it without consuming it, signs in creating a Free account, and signs out server-side', async () => {
    const sessionsAtStart = await sessions();
    const browser = newBrowser();
    const asked = await browser.post('/dashboard/sign-in-link', { email: 'new.user@example.com' });
    expect(asked.status).toBe(200);
    expect(await asked.text()).toContain('Check your e-mail');
    const mail = await t.mailbox.next();
    expect(mail.to).toEqual(['new.user@example.com']);
    expect(mail.raw).toContain('Content-Type: text/plain');
    expect(mail.raw).toContain('Content-Type: text/html');
    expect(mail.link).toMatch(new RegExp(`^${PUBLIC_URL}/dashboard/sign-in\\?token=[A-Za-z0-9_-]{43}$`));
    await expectAccounts(); // an unverified address creates nothing

    const path = mail.link.slice(PUBLIC_URL.length);
    for (let i = 0; i < 2; i++) {
      // a mail scanner's fetch, then the person's: both only see the button
      const opened = await browser.get(path);
      expect(opened.status).toBe(200);
      expectPageHeaders(opened);
      expect(await opened.text()).toMatch(/<button type="submit">Sign in<\/button>/);
    }
    const token = new URL(mail.link).searchParams.get('token')!;
    const signedIn = await browser.post('/dashboard/sign-in', { token });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe('/dashboard');
    const cookie = signedIn.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^session=[A-Za-z0-9_-]{43}; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax$/);
    await expectAccounts({ email: 'new.user@example.com', plan: 'free' });

    const overview = await browser.get('/dashboard');
    const html = await overview.text();
    expect(html).toContain('new.user@example.com');
    expect(html).toContain('Free');

    // the link is single use
    const replay = await newBrowser().post('/dashboard/sign-in', { token });
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('Get a new sign-in link');

    const stolen = new Map(browser.cookies);
    const out = await browser.post('/dashboard/sign-out', { csrf: Browser.csrfOf(html) });
    expect(out.status).toBe(303);
    expect(browser.cookies.size).toBe(0);
    const thief = newBrowser();
    for (const [k, v] of stolen) thief.cookies.set(k, v);
    expect(await (await thief.get('/dashboard')).text()).toContain('Send sign-in link');
    expect(await sessions()).toEqual(sessionsAtStart);
  });

  it('answers the same page for an unknown and a known address', async () => {
    const browser = newBrowser();
    await browser.signIn(t, 'known@example.com');
    const known = await newBrowser().post('/dashboard/sign-in-link', { email: 'known@example.com' });
    const unknown = await newBrowser().post('/dashboard/sign-in-link', { email: 'stranger@example.com' });
    expect(known.status).toBe(unknown.status);
    expect(await known.text()).toBe(await unknown.text());
  });

  it('keeps +tag and ignores case: one account for both spellings', async () => {
    await newBrowser().signIn(t, 'User+Tag@Example.COM');
    await newBrowser().signIn(t, 'user+tag@example.com');
    await expectAccounts({ email: 'user+tag@example.com', plan: 'free' });
  });

  it('signs in to an account the operator made, under the one rule both read an address by', async () => {
    const made = await t.operator(graphql('mutation($e: EmailAddress!) { createAccount(email: $e, plan: starter) { email } }'), { e: " O'Brien+AU@T4.test " });
    expect(made.errors).toBeUndefined();
    const browser = newBrowser();
    await browser.signIn(t, "o'brien+au@t4.test");
    await expectAccounts({ email: "o'brien+au@t4.test", plan: 'starter' });
  });

  it('replaces the session the browser had on a new sign-in (no fixation)', async () => {
    const browser = newBrowser();
    await browser.signIn(t, 'a@example.com');
    const first = browser.cookies.get('session')!;
    await browser.signIn(t, 'a@example.com');
    const second = browser.cookies.get('session')!;
    expect(second).not.toBe(first);
    const old = newBrowser();
    old.cookies.set('session', first);
    expect(await (await old.get('/dashboard')).text()).toContain('Send sign-in link');
  });

  it('sets a __Host- cookie with Secure over HTTPS', async () => {
    const browser = newBrowser({ https: true });
    const response = await browser.signIn(t, 'tls@example.com');
    expect(response.headers.get('set-cookie')).toMatch(/^__Host-session=[A-Za-z0-9_-]{43}; Max-Age=2592000; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    expect(await (await browser.get('/dashboard')).text()).toContain('tls@example.com');
  });

  it('lets a suspended account sign in and shows the banner', async () => {
    await t.operator(graphql('mutation { createAccount(email: "gone@example.com", plan: starter) { id } }'));
    await t.operator(graphql('mutation { setAccountStatus(email: "gone@example.com", status: suspended) { id } }'));
    const browser = newBrowser();
    await browser.signIn(t, 'gone@example.com');
    expect(await (await browser.get('/dashboard')).text()).toContain('This account is suspended');
  });
});

describe('links', () => {
  it('expire after 15 minutes', async () => {
    const browser = newBrowser();
    const late = await linkTokenFor(browser, 'late@example.com');
    const inTime = await linkTokenFor(browser, 'late@example.com');
    t.setNow('2026-05-12T03:14:59Z');
    expect((await browser.post('/dashboard/sign-in', { token: inTime })).status).toBe(303);
    t.setNow('2026-05-12T03:15:00Z');
    const expired = await newBrowser().post('/dashboard/sign-in', { token: late });
    expect(expired.status).toBe(400);
    expect(await expired.text()).toContain('expired, already used or not a link we sent');
  });

  it('are not consumed by failed attempts, and refuse malformed, unknown, huge and unicode tokens with a page offering a new one', async () => {
    const browser = newBrowser();
    const token = await linkTokenFor(browser, 'careful@example.com');
    const attempts = ['', 'abc', token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A'), 'x'.repeat(10 * 1024), 'ü'.repeat(43), `${token} `];
    for (const attempt of attempts) {
      const response = await browser.post('/dashboard/sign-in', { token: attempt });
      expect(response.status, attempt.slice(0, 50)).toBe(400);
      expect(await response.text()).toContain('Get a new sign-in link');
    }
    for (const query of ['', '?token=', '?token=short', `?token=${'ü'.repeat(43)}`, `?token=${'a'.repeat(10 * 1024)}`]) {
      const opened = await browser.get(`/dashboard/sign-in${query}`);
      expect(opened.status, query.slice(0, 50)).toBe(400);
      expect(await opened.text()).toContain('Get a new sign-in link');
    }
    expect((await browser.post('/dashboard/sign-in', { token })).status).toBe(303);
  });

  it('refuse bad e-mail addresses with the form again', async () => {
    const browser = newBrowser();
    const cases: [string, string][] = [
      ['', 'Enter your e-mail address'],
      ['not-an-address', 'Enter an e-mail address such as'],
      [`${'a'.repeat(10 * 1024)}@example.com`, 'at most 254 characters'],
      ['jürgen@example.com', 'plain ASCII'],
      ['<script>alert(1)</script>@x.com', 'such as'],
      // nor can the operator's command line make an account for these (test/cli/refusals.test.ts)
      ["o'brien&co@t4.test", 'such as'],
      ['x+%3cb%3e@t4.test', 'such as'],
    ];
    for (const [email, message] of cases) {
      const response = await browser.post('/dashboard/sign-in-link', { email });
      expect(response.status, email.slice(0, 40)).toBe(400);
      const html = await response.text();
      expect(html).toContain(message);
      expect(html).not.toContain('<script>');
    }
    expect(mailsSent()).toEqual([]);
  });

  it('are limited to 5 per address and 20 per client address an hour, naming the wait', async () => {
    const browser = newBrowser();
    for (let i = 0; i < 5; i++) expect((await browser.post('/dashboard/sign-in-link', { email: 'busy@example.com' })).status).toBe(200);
    t.setNow('2026-05-12T03:20:00Z');
    const sixth = await browser.post('/dashboard/sign-in-link', { email: 'BUSY@example.com' });
    expect(sixth.status).toBe(429);
    expect(sixth.headers.get('retry-after')).toBe(String(40 * 60));
    expect(await sixth.text()).toContain('Try again in 40 minutes');
    for (let i = 5; i < 20; i++) expect((await browser.post('/dashboard/sign-in-link', { email: `other${i}@example.com` })).status).toBe(200);
    const client = await browser.post('/dashboard/sign-in-link', { email: 'fresh@example.com' });
    expect(client.status).toBe(429);
    expect(await client.text()).toContain('from this network address');
    t.setNow('2026-05-12T04:20:01Z');
    expect((await browser.post('/dashboard/sign-in-link', { email: 'busy@example.com' })).status).toBe(200);
    expect(mailsSent().length).toBe(21);
  });
});

describe('sessions', () => {
  it('end after 7 idle days', async () => {
    const browser = newBrowser();
    await browser.signIn(t, 'idle@example.com');
    t.setNow('2026-05-19T02:59:59Z');
    expect(await (await browser.get('/dashboard')).text()).toContain('idle@example.com');
    t.setNow('2026-05-26T02:59:58Z');
    expect(await (await browser.get('/dashboard')).text()).toContain('idle@example.com');
    t.setNow('2026-06-02T03:00:00Z');
    expect(await (await browser.get('/dashboard')).text()).toContain('Send sign-in link');
  });

  it('end 30 days after sign-in however active', async () => {
    const browser = newBrowser();
    await browser.signIn(t, 'active@example.com');
    for (const day of ['05-18', '05-24', '05-30', '06-05', '06-10']) {
      t.setNow(`2026-${day}T03:00:00Z`);
      expect(await (await browser.get('/dashboard')).text()).toContain('active@example.com');
    }
    t.setNow('2026-06-11T03:00:00Z');
    expect(await (await browser.get('/dashboard')).text()).toContain('Send sign-in link');
  });
});

describe('CSRF and origins', () => {
  it('refuses a sign-out with a forged or missing CSRF token, keeping the session', async () => {
    const browser = newBrowser();
    await browser.signIn(t, 'csrf@example.com');
    for (const csrf of ['', 'forged', 'x'.repeat(10 * 1024), 'ü']) {
      expect((await browser.post('/dashboard/sign-out', { csrf })).status).toBe(403);
    }
    expect(await (await browser.get('/dashboard')).text()).toContain('csrf@example.com');
  });

  it('refuses state-changing posts from another origin or site', async () => {
    const browser = newBrowser();
    await browser.signIn(t, 'origin@example.com');
    const csrf = Browser.csrfOf(await (await browser.get('/dashboard')).text());
    const foreign: Record<string, string>[] = [
      { Origin: 'https://evil.example', 'Sec-Fetch-Site': '' },
      { Origin: 'null', 'Sec-Fetch-Site': '' },
      { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' },
      { 'Sec-Fetch-Site': 'cross-site' },
      { 'Sec-Fetch-Site': 'same-site' },
    ];
    for (const headers of foreign) {
      expect((await browser.post('/dashboard/sign-out', { csrf }, headers)).status).toBe(403);
      expect((await browser.post('/dashboard/sign-in-link', { email: 'x@example.com' }, headers)).status).toBe(403);
    }
    expect(mailsSent().length).toBe(1);
    expect(await (await browser.get('/dashboard')).text()).toContain('origin@example.com');
  });

  it('refuses plain HTTP from another machine', async () => {
    const response = await t.app.web.fetch(`${PUBLIC_URL}/dashboard`, {}, { req: { socket: { remoteAddress: '203.0.113.9', encrypted: false } } });
    expect(response.status).toBe(403);
  });
});
