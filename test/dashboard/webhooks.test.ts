// The Webhooks page (docs/api.md §4.2; D26–D28 in docs/decisions.md): through the same GraphQL
// operations as /api/webhook-subscriptions with the session's account as viewer. Create (the secret
// shown once), Send test to a real HTTPS receiver, pause and re-activate, delete after confirmation,
// the recent deliveries of the worker's attempts; Free and Starter see what the plan would give; a
// suspended account or a full plan cannot create; another account's id is 404 and changes nothing.
import type { Plan } from '../../src/domain/plans.js';
import type { RbaDay } from '../../src/rba/index.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OPENSSL_AVAILABLE } from '../support/certificate.js';
import { Browser, pageText, startDashboardApp, type DashboardApp } from '../support/dashboard.js';
import { graphql } from '../../src/graphql.js';
import { tableResolver } from '../support/dns.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const secretOf = (html: string) => /id="signing-secret" type="text" readonly value="(whsec_[A-Za-z0-9_-]{43})"/.exec(html)?.[1];
const day = (date: string): RbaDay => ({ date, rates: { USD: '0.6543', EUR: '0.6012', TWI: '61.40' } });

describe.skipIf(!OPENSSL_AVAILABLE)('the Webhooks page', () => {
  let t: DashboardApp;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    t = await startDashboardApp({
      now: '2026-05-12T07:00:00Z',
      config: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
      // no name is looked up for real: a name outside the table does not resolve
      webhookNetwork: { ca: [receiver.ca], timeoutMs: 2_000, resolve: tableResolver({}).resolve },
    });
    await t.importTable({ format: 'csv', publicationDate: null, days: [day('2026-05-12')] });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });
  beforeEach(() => receiver.clear());

  let accounts = 0;
  /** A signed-in browser of a new account on `plan`, and its page's CSRF token. */
  async function signedIn(plan: Plan): Promise<{ browser: Browser; email: string; csrf: string }> {
    const email = `hooks-${++accounts}@example.com`;
    await t.operator(graphql('mutation($e: EmailAddress!, $p: Plan!) { createAccount(email: $e, plan: $p) { id } }'), { e: email, p: plan });
    const browser = new Browser(t);
    await browser.signIn(t, email);
    const csrf = Browser.csrfOf(await (await browser.get('/dashboard/webhooks')).text());
    return { browser, email, csrf };
  }

  const subscriptionsOf = (email: string) =>
    t.db
      .selectFrom('webhook_subscriptions as s')
      .innerJoin('accounts as a', 'a.id', 's.account_id')
      .select(['s.id', 's.url', 's.currencies', 's.description', 's.is_active', 's.failure_count'])
      .where('a.email', '=', email)
      .execute();

  /** Creates a subscription to the receiver at `path` from the page; its id and signing secret. */
  async function create(browser: Browser, csrf: string, path: string, fields: Record<string, string> = {}) {
    const response = await browser.post('/dashboard/webhooks', { csrf, url: receiver.url(path), ...fields });
    const html = await response.text();
    expect(response.status, pageText(html).slice(0, 400)).toBe(200);
    const secret = secretOf(html)!;
    receiver.setSecret(path, secret);
    const id = /name="id" value="([0-9a-f]{32})"/.exec(html)![1]!;
    return { id, secret, html };
  }

  it('creates a subscription showing its signing secret once, and lists its health', async () => {
    const { browser, email, csrf } = await signedIn('professional');
    const empty = pageText(await (await browser.get('/dashboard/webhooks')).text());
    expect(empty).toContain('Subscriptions (0 of 3)');
    expect(empty).toContain('No subscriptions yet.');
    const { secret, html } = await create(browser, csrf, '/created', { currencies: 'usd, EUR  jpy', description: 'Pricing service ✓' });
    expect(secret).toMatch(/^whsec_/);
    expect(pageText(html)).toContain('Copy it now: it is not shown again');
    expect(await subscriptionsOf(email)).toEqual([
      expect.objectContaining({ url: receiver.url('/created'), currencies: ['USD', 'EUR', 'JPY'], description: 'Pricing service ✓', is_active: true }),
    ]);
    const listed = await (await browser.get('/dashboard/webhooks')).text();
    expect(listed).not.toContain(secret);
    const text = pageText(listed);
    expect(text).toContain('Subscriptions (1 of 3)');
    expect(text).toContain(
      `${receiver.url('/created')} Pricing service ✓ Status Active Last publication delivered Never Last test None sent Currencies USD, EUR, JPY`,
    );
    expect(text).toContain('Recent deliveries (0)');
    // the secret is in no other page either
    for (const path of ['/dashboard', '/dashboard/keys', '/dashboard/usage']) expect(await (await browser.get(path)).text()).not.toContain(secret);
  });

  it("Send test delivers a signed rates.test, redirects to the list showing the receiver's status and the last test, and a reload sends nothing", async () => {
    const { browser, csrf } = await signedIn('professional');
    const { id } = await create(browser, csrf, '/tested');
    const ok = await browser.post('/dashboard/webhooks/test', { csrf, id });
    // the result is shown after a redirect: reloading the page it lands on sends no other test
    expect(ok.status).toBe(303);
    const landing = ok.headers.get('location')!;
    expect(landing).toBe(`/dashboard/webhooks?tested=${id}#sub-${id}`);
    const text = pageText(await (await browser.get(landing)).text());
    expect(pageText(await (await browser.get(landing)).text())).toContain(`Test delivered ${receiver.url('/tested')} answered HTTP 200.`);
    expect(text).toContain(`Test delivered ${receiver.url('/tested')} answered HTTP 200.`);
    expect(receiver.deliveries).toHaveLength(1);
    expect(receiver.deliveries[0]!.signatureValid).toBe(true);
    expect(receiver.deliveries[0]!.json.event).toBe('rates.test');
    expect(text).toMatch(/Last publication delivered Never Last test \d{1,2} May 2026, \d\d:\d\d UTC \(\d\d:\d\d in Sydney\) ?: HTTP 200, acknowledged/);
    expect(text).toMatch(
      /Recent deliveries \(1\) When Event Rate date Attempt Result Duration Next retry .+ in Sydney\) rates\.test 12 May 2026 1 HTTP 200 \d+ ms —/,
    );

    receiver.behave('/tested', { status: 500 });
    const again = await browser.post('/dashboard/webhooks/test', { csrf, id });
    expect(again.status).toBe(303);
    const failed = pageText(await (await browser.get(again.headers.get('location')!)).text());
    expect(failed).toContain(`Test failed ${receiver.url('/tested')} answered HTTP 500.`);
    expect(receiver.deliveries).toHaveLength(2);
    // a test changes no health (D28): the last publication delivered is still none, the last test failed
    expect(failed).toMatch(/Status Active Last publication delivered Never Last test .+ in Sydney\) ?: HTTP 500, not acknowledged/);
    expect(failed).toContain('Recent deliveries (2)');
  });

  it("lists the worker's attempts of a publication with the next retry, and re-activating clears the failure count", async () => {
    const { browser, email, csrf } = await signedIn('professional');
    const { id } = await create(browser, csrf, '/flaky');
    receiver.behave('/flaky', { status: 503 });
    t.setNow('2026-05-13T07:00:00Z');
    try {
      await t.importTable({ format: 'csv', publicationDate: '2026-05-13', days: [day('2026-05-13')] });
      await t.app.deliveries.runDue();
    } finally {
      t.setNow('2026-05-12T07:00:00Z');
    }
    const failing = pageText(await (await browser.get('/dashboard/webhooks')).text());
    expect(failing).toContain('Status Failing (1 in a row)');
    expect(failing).toMatch(/rates\.published 13 May 2026 1 HTTP 503 [\d,]+ ms 13 May 2026, 07:01 UTC \(17:01 in Sydney\)/);

    expect((await browser.post('/dashboard/webhooks/active', { csrf, id, active: 'false' })).status).toBe(303);
    const paused = pageText(await (await browser.get('/dashboard/webhooks')).text());
    expect(paused).toContain('Status Paused');
    expect(paused).toContain('Re-activate');
    expect(await subscriptionsOf(email)).toEqual([expect.objectContaining({ is_active: false, failure_count: 1 })]);

    expect((await browser.post('/dashboard/webhooks/active', { csrf, id, active: 'true' })).status).toBe(303);
    expect(await subscriptionsOf(email)).toEqual([expect.objectContaining({ is_active: true, failure_count: 0 })]);
    expect(pageText(await (await browser.get('/dashboard/webhooks')).text())).toContain('Status Active');
  });

  it("Redeliver sends a publication's delivery again with the same id, shows the answer and lists the attempt", async () => {
    const { browser, email, csrf } = await signedIn('professional');
    const { id } = await create(browser, csrf, '/mending');
    receiver.behave('/mending', { status: 500 });
    t.setNow('2026-05-14T07:00:00Z');
    try {
      await t.importTable({ format: 'csv', publicationDate: '2026-05-14', days: [day('2026-05-14')] });
      await t.app.deliveries.runDue();
      const html = await (await browser.get('/dashboard/webhooks')).text();
      // other accounts' subscriptions of this file receive the publication too
      const mending = () => receiver.deliveries.filter((d) => d.path === '/mending');
      const deliveryId = mending()[0]!.headers['x-exchangerates-delivery']!;
      expect(html.match(/action="\/dashboard\/webhooks\/redeliver"/g)).toHaveLength(1);
      expect(html).toContain(`name="delivery" value="${deliveryId}"`);

      receiver.behave('/mending', { status: 200 });
      const sent = await browser.post('/dashboard/webhooks/redeliver', { csrf, id, delivery: deliveryId });
      expect(sent.status).toBe(303);
      const text = pageText(await (await browser.get(sent.headers.get('location')!)).text());
      expect(text).toContain('Redelivered');
      expect(text).toContain(`${receiver.url('/mending')} answered HTTP 200.`);
      expect(text).toMatch(/rates\.published 14 May 2026 2 HTTP 200/);
      expect(mending()).toHaveLength(2);
      expect(mending()[1]!.headers['x-exchangerates-delivery']).toBe(deliveryId);
      expect(mending()[1]!.signatureValid).toBe(true);
      expect(await subscriptionsOf(email)).toEqual([expect.objectContaining({ is_active: true, failure_count: 0 })]);

      const unknown = await browser.post('/dashboard/webhooks/redeliver', { csrf, id, delivery: 'not-a-delivery' });
      expect(unknown.status).toBe(404);
    } finally {
      t.setNow('2026-05-12T07:00:00Z');
    }
  });

  it("folds each attempt's request and response bodies, escaped, and redelivers a test delivery", async () => {
    const { browser, csrf } = await signedIn('professional');
    const { id } = await create(browser, csrf, '/refusing');
    const answer = '{"error":"<b>currency & date</b> refused"}';
    receiver.behave('/refusing', { status: 422, body: answer });
    expect((await browser.post('/dashboard/webhooks/test', { csrf, id })).status).toBe(303);
    const html = await (await browser.get('/dashboard/webhooks')).text();
    const sent = receiver.deliveries.filter((d) => d.path === '/refusing');
    expect(sent).toHaveLength(1);
    const unescape = (s: string) => s.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replaceAll('&amp;', '&');
    const bodies = /<details><summary>Request and response of attempt 1<\/summary>([\s\S]*?)<\/details>/.exec(html)?.[1] ?? '';
    expect(bodies).toContain('Response body (its first 4 KiB)');
    expect(bodies).not.toContain('<b>');
    // the request body is the exact payload the receiver got, the response what it answered
    const pres = [...bodies.matchAll(/<pre>([\s\S]*?)<\/pre>/g)].map((m) => m[1]!);
    expect(pres).toHaveLength(2);
    expect(pres.map(unescape)).toEqual([sent[0]!.rawBody, answer]);

    // a test delivery is redelivered from its row as any other
    expect(html).toContain(`name="delivery" value="${sent[0]!.headers['x-exchangerates-delivery']}"`);
    receiver.behave('/refusing', { status: 200, body: 'thanks' });
    const again = await browser.post('/dashboard/webhooks/redeliver', { csrf, id, delivery: sent[0]!.headers['x-exchangerates-delivery']! });
    expect(again.status).toBe(303);
    const text = pageText(await (await browser.get(again.headers.get('location')!)).text());
    expect(text).toContain('Redelivered');
    expect(text).toMatch(/rates\.test \d{1,2} May 2026 2 HTTP 200/);
    expect(text).toContain('Response body (its first 4 KiB) thanks');
    const both = receiver.deliveries.filter((d) => d.path === '/refusing');
    expect(both).toHaveLength(2);
    expect(both[1]!.rawBody).toBe(both[0]!.rawBody);
    expect(both[1]!.signatureValid).toBe(true);
  });

  it('deletes only after the confirmation page', async () => {
    const { browser, email, csrf } = await signedIn('professional');
    const { id } = await create(browser, csrf, '/deleted');
    const confirm = await browser.get(`/dashboard/webhooks/delete?id=${id}`);
    expect(confirm.status).toBe(200);
    const html = await confirm.text();
    expect(pageText(html)).toContain('Delete this subscription?');
    expect(pageText(html)).toContain('This cannot be undone.');
    expect(await subscriptionsOf(email)).toHaveLength(1);
    const deleted = await browser.post('/dashboard/webhooks/delete', { csrf: Browser.csrfOf(html), id });
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get('location')).toBe('/dashboard/webhooks');
    expect(await subscriptionsOf(email)).toHaveLength(0);
    expect((await browser.get(`/dashboard/webhooks/delete?id=${id}`)).status).toBe(404);
  });

  it('shows Free and Starter what Professional gives, with no form, and refuses a forced creation', async () => {
    for (const plan of ['free', 'starter'] as const) {
      const { browser, email, csrf } = await signedIn(plan);
      const html = await (await browser.get('/dashboard/webhooks')).text();
      const text = pageText(html);
      expect(text).toContain('Webhooks come with the Professional plan and above');
      expect(text).toContain('up to 3 HTTPS addresses');
      expect(html).not.toContain('action="/dashboard/webhooks"');
      const forced = await browser.post('/dashboard/webhooks', { csrf, url: receiver.url('/forced') });
      expect(forced.status).toBe(403);
      expect(pageText(await forced.text())).toContain('Webhook subscriptions are not available on the');
      expect(await subscriptionsOf(email)).toHaveLength(0);
    }
  });

  it("replaces the form with the reason at the plan's count, and refuses a forced creation", async () => {
    const { browser, email, csrf } = await signedIn('professional');
    for (const path of ['/a', '/b', '/c']) await create(browser, csrf, path);
    const text = pageText(await (await browser.get('/dashboard/webhooks')).text());
    expect(text).toContain('The Professional plan allows 3 webhook subscriptions: delete one to add another.');
    expect((await browser.post('/dashboard/webhooks', { csrf, url: receiver.url('/d') })).status).toBe(403);
    expect(await subscriptionsOf(email)).toHaveLength(3);
  });

  it('a suspended account sees why, with no actions, and can neither create nor change a subscription', async () => {
    const { browser, email, csrf } = await signedIn('professional');
    expect((await browser.post('/dashboard/webhooks', { csrf, url: receiver.url('/before-suspension') })).status).toBe(200);
    const before = await subscriptionsOf(email);
    await t.operator(graphql('mutation($e: EmailAddress!) { setAccountStatus(email: $e, status: suspended) { id } }'), { e: email });
    const html = await (await browser.get('/dashboard/webhooks')).text();
    expect(pageText(html)).toContain('The account is suspended: webhook subscriptions cannot be created or changed until it is reinstated.');
    expect(html).not.toContain('action="/dashboard/webhooks/active"');
    expect(html).not.toContain('action="/dashboard/webhooks/test"');
    expect(html).not.toContain('href="/dashboard/webhooks/delete');
    const forced = await browser.post('/dashboard/webhooks', { csrf, url: receiver.url('/suspended') });
    expect(forced.status).toBe(403);
    const id = before[0]!.id;
    for (const [path, fields] of [
      ['/dashboard/webhooks/active', { csrf, id, active: 'false' }],
      ['/dashboard/webhooks/test', { csrf, id }],
      ['/dashboard/webhooks/redeliver', { csrf, id, delivery: '00000000-0000-0000-0000-000000000000' }],
      ['/dashboard/webhooks/delete', { csrf, id }],
    ] as const) {
      expect((await browser.post(path, fields)).status).toBe(403);
    }
    expect(await subscriptionsOf(email)).toEqual(before);
    expect(receiver.deliveries).toHaveLength(0);
  });

  it("answers 404 for another account's subscription id, or a malformed one, in every form, and changes nothing", async () => {
    const owner = await signedIn('professional');
    const { id } = await create(owner.browser, owner.csrf, '/owned');
    const { browser, csrf } = await signedIn('business');
    expect((await browser.get(`/dashboard/webhooks/delete?id=${id}`)).status).toBe(404);
    for (const other of [id, '', 'not-an-id', 'A'.repeat(32), 'x'.repeat(10 * 1024), 'ü😀']) {
      for (const [path, extra] of [
        ['/dashboard/webhooks/test', {}],
        ['/dashboard/webhooks/redeliver', { delivery: '00000000-0000-0000-0000-000000000000' }],
        ['/dashboard/webhooks/active', { active: 'false' }],
        ['/dashboard/webhooks/delete', {}],
      ] as const) {
        const response = await browser.post(path, { csrf, id: other, ...extra });
        expect(response.status, `${path} ${other.slice(0, 20)}`).toBe(404);
        expect(await response.text()).not.toMatch(/ at \S+\.[jt]s:\d+|\bError\b/);
      }
    }
    expect(receiver.deliveries).toHaveLength(0);
    expect(await subscriptionsOf(owner.email)).toEqual([expect.objectContaining({ id, is_active: true })]);
  });

  it('refuses bad creation fields with the reason and the form kept, storing nothing', async () => {
    const { browser, email, csrf } = await signedIn('professional');
    const cases: [Record<string, string>, RegExp][] = [
      [{ url: '' }, /Enter a whole address starting with https:\/\//],
      [{ url: 'not a url' }, /The URL cannot contain spaces/],
      [{ url: 'http://example.com/hook' }, /The URL must start with https:\/\//],
      [{ url: `https://example.com/${'x'.repeat(10 * 1024)}` }, /The URL is too long: it may have at most 2048 characters/],
      [{ url: 'https://user:pass@example.com/' }, /The URL cannot contain a user name or password/],
      [{ url: 'https://bücher.例え.テスト/hook' }, /No server named .+ was found: check the address/],
      [{ url: 'https://a\u0000b.example/' }, /cannot be stored|invisible characters/],
      [{ url: receiver.url('/x'), currencies: 'USD, XYZ' }, /XYZ is not a currency the service publishes/],
      [{ url: receiver.url('/x'), currencies: 'usd USD' }, /USD is listed twice/],
      [{ url: receiver.url('/x'), currencies: 'AUD' }, /Leave out AUD/],
      [{ url: receiver.url('/x'), currencies: '💶' }, /is not a currency the service publishes/],
      [{ url: receiver.url('/x'), currencies: 'USD '.repeat(2600) }, /may have at most 400 characters/],
      [{ url: receiver.url('/x'), description: 'é'.repeat(201) }, /The description is too long/],
      [{ url: receiver.url('/x'), description: 'd'.repeat(10 * 1024) }, /The description is too long/],
      [{ url: receiver.url('/x'), description: 'nul\u0000here' }, /cannot be stored/],
    ];
    for (const [fields, reason] of cases) {
      const response = await browser.post('/dashboard/webhooks', { csrf, ...fields });
      const html = await response.text();
      const label = JSON.stringify(fields).slice(0, 60);
      expect(response.status, label).toBe(400);
      expect(pageText(html), label).toMatch(reason);
      // the API's wording of the field ("url must …", "currencies: …") is not the form's
      expect(pageText(html), label).not.toMatch(/\burl (must|host)\b|currencies:|description must/);
      expect(html, label).toContain('<form method="post" action="/dashboard/webhooks"');
      expect(html, label).not.toContain('whsec_');
    }
    // what was sent is kept in the form, escaped
    const kept = await (await browser.post('/dashboard/webhooks', { csrf, url: 'http://"><script>x</script>' })).text();
    expect(kept).toContain('value="http://&quot;>&lt;script>x&lt;/script>"');
    expect(kept).not.toContain('<script>x</script>');
    expect(await subscriptionsOf(email)).toHaveLength(0);
  });

  it('refuses a form with an unclear pause value, a forged CSRF token, another origin, and a signed-out session', async () => {
    const { browser, email, csrf } = await signedIn('professional');
    const { id } = await create(browser, csrf, '/guarded');
    for (const active of ['', 'yes', 'TRUE', 'x'.repeat(10 * 1024)]) {
      expect((await browser.post('/dashboard/webhooks/active', { csrf, id, active })).status, active.slice(0, 10)).toBe(400);
    }
    for (const path of [
      '/dashboard/webhooks/active',
      '/dashboard/webhooks/delete',
      '/dashboard/webhooks/test',
      '/dashboard/webhooks/redeliver',
      '/dashboard/webhooks',
    ]) {
      const form = { id, active: 'false', url: receiver.url('/forged') };
      expect((await browser.post(path, { ...form, csrf: 'forged' })).status, path).toBe(403);
      expect((await browser.post(path, { ...form, csrf: '' })).status, path).toBe(403);
      expect((await browser.post(path, { ...form, csrf }, { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' })).status, path).toBe(403);
    }
    const cookies = new Map(browser.cookies);
    expect((await browser.post('/dashboard/sign-out', { csrf })).status).toBe(303);
    for (const [name, value] of cookies) browser.cookies.set(name, value);
    expect((await browser.post('/dashboard/webhooks/delete', { csrf, id })).status).toBe(401);
    expect((await browser.get('/dashboard/webhooks')).status).toBe(303);
    expect(receiver.deliveries).toHaveLength(0);
    expect(await subscriptionsOf(email)).toEqual([expect.objectContaining({ id, is_active: true })]);
  });
});
