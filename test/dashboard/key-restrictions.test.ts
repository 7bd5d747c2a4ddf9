// Key restrictions on the Keys page over HTTP: set when generating, shown in the list with a capped
// key's use, edited on the key's Restrictions page (an empty field removes that restriction, the
// second button removes all), refused in the form's words with what was sent kept; another
// account's key is 404 and a form without the session's token changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphql } from '../../src/graphql.js';
import { Browser, signedInBrowser, startDashboardApp, type DashboardApp } from '../support/dashboard.js';

let t: DashboardApp;
beforeAll(async () => {
  t = await startDashboardApp({ now: '2026-05-12T03:00:00Z' });
  await t.importFixture('f11.1-data.csv');
});
afterAll(() => t.close());

const keyOf = (html: string) => /id="new-key" type="text" readonly value="([a-z]+_[A-Za-z0-9]{56})"/.exec(html)?.[1];
const idOf = (html: string) => /href="\/dashboard\/keys\/revoke\?id=([0-9a-f-]{36})"/.exec(html)?.[1];
const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

async function professional(email: string): Promise<Browser> {
  await t.operator(graphql('mutation($e: EmailAddress!) { createAccount(email: $e, plan: professional) { id } }'), { e: email });
  return signedInBrowser(t, email);
}

describe('the Keys page', () => {
  it('generates a key with restrictions and lists them, with the cap used this period', async () => {
    const browser = await professional('dash-restrict@example.com');
    const csrf = Browser.csrfOf(await (await browser.get('/dashboard/keys')).text());
    const generated = await browser.post('/dashboard/keys', {
      csrf,
      allowedIps: '127.0.0.1, 2001:db8::/32',
      allowedEndpoints: 'historical',
      expiresOn: '2026-06-01',
      monthlyCap: '10',
    });
    expect(generated.status).toBe(200);
    const key = keyOf(await generated.text())!;
    expect((await t.json('/2026-05-11', { key })).status).toBe(200);
    expect((await t.json('/latest', { key })).body.error.type).toBe('key_restricted');
    const listed = text(await (await browser.get('/dashboard/keys')).text());
    expect(listed).toContain('From 127.0.0.1/32, 2001:db8::/32');
    expect(listed).toContain('Only historical');
    expect(listed).toContain('Expires 1 June 2026, 00:00 UTC (10:00 in Sydney)');
    expect(listed).toContain(' Active ');
    expect(listed).toContain('Cap 1 of 10 used this period');
  });

  it('refuses restrictions it cannot take (sent with Generate by hand), in the form’s words, making no key', async () => {
    const browser = await professional('dash-refuse@example.com');
    const csrf = Browser.csrfOf(await (await browser.get('/dashboard/keys')).text());
    for (const [form, words] of [
      [{ monthlyCap: 'lots' }, 'Monthly cap: enter a whole number of requests'],
      [{ monthlyCap: '-1' }, 'Monthly cap: enter a whole number of requests, 0 or more, or leave it empty.'],
      [{ monthlyCap: '50001' }, "Monthly cap: 50001 is more than the Professional plan's 50000 requests"],
      [{ expiresOn: '2026-05-11' }, 'Expires on: 2026-05-11 has passed'],
      [{ expiresOn: 'soon' }, 'Expires on: enter a date'],
      [{ allowedIps: '10.0.0.0/99' }, "Allowed IP ranges: '10.0.0.0/99' is not a CIDR range"],
      [{ allowedEndpoints: 'everything' }, "Allowed endpoints: 'everything' is not an endpoint name"],
    ] as const) {
      const refused = await browser.post('/dashboard/keys', { csrf, ...form });
      expect(refused.status).toBe(400);
      const html = await refused.text();
      expect(text(html).replace(/&#39;|&apos;/g, "'")).toContain(words);
      expect(keyOf(html)).toBeUndefined();
    }
    expect(text(await (await browser.get('/dashboard/keys')).text())).toContain('No keys yet.');
  });
});

describe('what a key is offered', () => {
  it('generates in one click, folds each key’s restrictions under it, and offers only the endpoints its plan allows', async () => {
    const offered = async (email: string, plan: 'free' | 'professional' | 'business') => {
      await t.operator(graphql('mutation($e: EmailAddress!, $p: Plan!) { createAccount(email: $e, plan: $p) { id } }'), { e: email, p: plan });
      const browser = await signedInBrowser(t, email);
      const before = await (await browser.get('/dashboard/keys')).text();
      // the Generate form is the button alone: no restriction field above the list
      expect(before).not.toContain('name="allowedEndpoints"');
      expect((await browser.post('/dashboard/keys', { csrf: Browser.csrfOf(before) })).status).toBe(200);
      const html = await (await browser.get('/dashboard/keys')).text();
      const folded = /<details><summary>Change the restrictions of [^<]+<\/summary>([\s\S]*?)<\/details>/.exec(html)?.[1] ?? '';
      return [...folded.matchAll(/name="allowedEndpoints" value="(\w+)"/g)].map((m) => m[1]);
    };
    expect(await offered('offer-free@example.com', 'free')).toEqual(['latest', 'convert', 'mcp']);
    expect(await offered('offer-pro@example.com', 'professional')).toEqual([
      'latest',
      'historical',
      'timeseries',
      'convert',
      'fluctuation',
      'averages',
      'webhooks',
      'alerts',
      'mcp',
    ]);
    expect(await offered('offer-business@example.com', 'business')).toContain('export');
  });
});

describe('an expired key', () => {
  it('is listed as Expired from 00:00 UTC on its expiry, when the API refuses it with 401', async () => {
    const browser = await professional('dash-expired@example.com');
    const csrf = Browser.csrfOf(await (await browser.get('/dashboard/keys')).text());
    // today (UTC) is the earliest expiry a key may be given: it is refused at once
    const key = keyOf(await (await browser.post('/dashboard/keys', { csrf, expiresOn: '2026-05-12' })).text())!;
    const answer = await t.json('/latest', { key });
    expect(answer.status).toBe(401);
    expect(answer.body.error.info).toMatch(/expired/);
    const listed = text(await (await browser.get('/dashboard/keys')).text());
    expect(listed).toContain(' Expired ');
    expect(listed).not.toContain(' Active ');
    expect(listed).toContain('Expired 12 May 2026, 00:00 UTC (10:00 in Sydney)');
    // the day before, the same key was listed as Active, as the API then took it
    t.setNow('2026-05-11T23:59:00Z');
    try {
      expect((await t.json('/latest', { key })).status).toBe(200);
      const before = text(await (await browser.get('/dashboard/keys')).text());
      expect(before).toContain(' Active ');
      expect(before).toContain('Expires 12 May 2026, 00:00 UTC (10:00 in Sydney)');
    } finally {
      t.setNow('2026-05-12T03:00:00Z');
    }
  });
});

describe("a key's Restrictions page", () => {
  it('edits them (an empty field removes one) and removes them all', async () => {
    const browser = await professional('dash-edit@example.com');
    const csrf = Browser.csrfOf(await (await browser.get('/dashboard/keys')).text());
    const key = keyOf(await (await browser.post('/dashboard/keys', { csrf, monthlyCap: '3' })).text())!;
    const id = idOf(await (await browser.get('/dashboard/keys')).text())!;
    const page = await (await browser.get(`/dashboard/keys/restrict?id=${id}`)).text();
    expect(page).toContain('value="3"');
    expect(page).toContain('Remove all restrictions');

    expect((await browser.post('/dashboard/keys/restrict', { csrf, id, allowedEndpoints: 'historical', monthlyCap: '3' })).status).toBe(303);
    expect((await t.json('/latest', { key })).body.error.type).toBe('key_restricted');
    // the cap field left empty removes the cap and keeps nothing else the form did not send
    expect((await browser.post('/dashboard/keys/restrict', { csrf, id, allowedEndpoints: 'historical' })).status).toBe(303);
    const listed = text(await (await browser.get('/dashboard/keys')).text());
    expect(listed).toContain('Only historical');
    expect(listed).not.toContain('Cap ');

    const refused = await browser.post('/dashboard/keys/restrict', { csrf, id, expiresOn: '2020-01-01' });
    expect(refused.status).toBe(400);
    expect(text(await refused.text())).toContain('Expires on: 2020-01-01 has passed');
    expect((await t.json('/latest', { key })).body.error.type).toBe('key_restricted');

    expect((await browser.post('/dashboard/keys/restrict', { csrf, id, clear: 'yes' })).status).toBe(303);
    expect((await t.json('/latest', { key })).status).toBe(200);
    expect(await (await browser.get(`/dashboard/keys/restrict?id=${id}`)).text()).not.toContain('Remove all restrictions');
  });

  it("is 404 for another account's key, and refuses a form without the session's token", async () => {
    const owner = await professional('dash-owner@example.com');
    const csrf = Browser.csrfOf(await (await owner.get('/dashboard/keys')).text());
    const key = keyOf(await (await owner.post('/dashboard/keys', { csrf })).text())!;
    const id = idOf(await (await owner.get('/dashboard/keys')).text())!;
    const other = await professional('dash-other@example.com');
    const otherCsrf = Browser.csrfOf(await (await other.get('/dashboard/keys')).text());
    expect((await other.get(`/dashboard/keys/restrict?id=${id}`)).status).toBe(404);
    expect((await other.post('/dashboard/keys/restrict', { csrf: otherCsrf, id, allowedEndpoints: 'historical' })).status).toBe(404);
    expect((await owner.post('/dashboard/keys/restrict', { csrf: 'wrong', id, allowedEndpoints: 'historical' })).status).toBe(403);
    expect((await owner.get('/dashboard/keys/restrict?id=not-an-id')).status).toBe(404);
    expect((await t.json('/latest', { key })).status).toBe(200);
  });
});
