// POST /api/webhook-subscriptions (docs/api.md §2.11, §4.2; D26 in docs/decisions.md): what a valid
// creation answers and stores, and the plans' subscription counts (docs/api.md §8): none on Free and
// Starter, 3 / 10 / 50 above, inactive ones included, exact under concurrent creations, following a
// plan change at once.
// Host names reach an injected resolver only: nothing here looks up a real name.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/domain/plans.js';
import { appForFile } from '../support/app.js';
import { expectError } from '../support/expect.js';
import { tableResolver } from '../support/dns.js';
import { graphql } from '../../src/graphql.js';

const PATH = '/api/webhook-subscriptions';
const PUBLIC_V4 = '93.184.216.34';
const PUBLIC_V6 = '2606:2800:220:1:248:1893:25c8:1946';
const DNS: Record<string, string[]> = {
  'hooks.example.com': [PUBLIC_V4],
  'v6.example.com': [PUBLIC_V6],
  'private.example.com': ['10.1.2.3'],
};
/** Every name the service asked about, in order. (`asked`) */
const { resolve, asked } = tableResolver(DNS);

const SET_PLAN = graphql('mutation($e: EmailAddress!, $p: Plan!) { setAccountPlan(email: $e, plan: $p) { plan } }');
const SECRET = /^whsec_[A-Za-z0-9_-]{43}$/;
const ID = /^[0-9a-f]{32}$/;

const t = appForFile({ webhookNetwork: { resolve } });
let allCodes: string[];
beforeAll(async () => {
  const symbols = await t.json('/symbols');
  allCodes = Object.keys(symbols.body.symbols).filter((code) => code !== 'AUD');
});

const JSON_TYPE = { 'Content-Type': 'application/json' };
const create = (key: string, body: unknown = { url: 'https://hooks.example.com/rates' }) => t.json(PATH, { key, method: 'POST', headers: JSON_TYPE, body });
const list = (key: string) => t.json(PATH, { key });
const sorted = (codes: readonly string[]) => [...codes].sort();

async function account(plan: Plan): Promise<{ key: string; email: string }> {
  const email = `subs-${plan}-${randomUUID()}@example.test`;
  return { key: await t.createKey(plan, email), email };
}

async function setPlan(email: string, plan: Plan): Promise<void> {
  const changed = await t.operator(SET_PLAN, { e: email, p: plan });
  expect(changed.errors).toBeUndefined();
}

/** Creates `count` subscriptions, each expected to succeed; returns their ids. */
async function fill(key: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await create(key, { url: `https://hooks.example.com/rates/${i}` });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    ids.push(res.body.subscription.id);
  }
  return ids;
}

describe('a valid creation', () => {
  it('answers 200 with the signing secret, a warning to store it, and the subscription', async () => {
    const { key } = await account('professional');
    const res = await create(key, { url: 'https://hooks.example.com/rates', currencies: ['USD', 'EUR'], description: 'Treasury feed' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['signingSecret', 'subscription', 'success', 'warning']);
    expect(res.body.success).toBe(true);
    expect(res.body.signingSecret).toMatch(SECRET);
    expect(typeof res.body.warning).toBe('string');
    expect(res.body.warning.length).toBeGreaterThan(10);
    expect(res.body.subscription).toEqual({
      id: expect.stringMatching(ID),
      url: 'https://hooks.example.com/rates',
      currencies: ['USD', 'EUR'],
      description: 'Treasury feed',
    });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('is not cacheable: the secret must not be kept by any cache', async () => {
    const { key } = await account('professional');
    const res = await create(key);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('the signing secret is whsec_ and 32 bytes in base64url (D26)', async () => {
    const { key } = await account('professional');
    const { body } = await create(key);
    const raw = Buffer.from(body.signingSecret.slice('whsec_'.length), 'base64url');
    expect(raw).toHaveLength(32);
    expect(raw.toString('base64url')).toBe(body.signingSecret.slice('whsec_'.length));
  });

  it('each subscription gets its own id and its own secret', async () => {
    const { key } = await account('business');
    const created = await Promise.all([create(key), create(key), create(key)]);
    expect(created.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(new Set(created.map((r) => r.body.subscription.id)).size).toBe(3);
    expect(new Set(created.map((r) => r.body.signingSecret)).size).toBe(3);
  });

  it('currencies left out means every code but AUD: the /symbols list minus AUD', async () => {
    const { key } = await account('professional');
    const res = await create(key, { url: 'https://hooks.example.com/all' });
    expect(res.status).toBe(200);
    expect(allCodes).toHaveLength(20);
    expect(res.body.subscription.currencies).toHaveLength(20);
    expect(sorted(res.body.subscription.currencies)).toEqual(sorted(allCodes));
    expect(res.body.subscription.currencies).not.toContain('AUD');
  });

  it('description left out is null', async () => {
    const { key } = await account('professional');
    const res = await create(key, { url: 'https://hooks.example.com/plain' });
    expect(res.body.subscription.description).toBeNull();
  });

  it('null currencies and null description count as left out', async () => {
    const { key } = await account('professional');
    const res = await create(key, { url: 'https://hooks.example.com/nulls', currencies: null, description: null });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(sorted(res.body.subscription.currencies)).toEqual(sorted(allCodes));
    expect(res.body.subscription.description).toBeNull();
  });

  it('currency codes are case-insensitive on input and upper-case on output (D4)', async () => {
    const { key } = await account('professional');
    const res = await create(key, { url: 'https://hooks.example.com/mixed', currencies: ['usd', 'Eur', 'jPY'] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(sorted(res.body.subscription.currencies)).toEqual(['EUR', 'JPY', 'USD']);
  });

  it('every one of the 20 codes other than AUD may be chosen, TWI and SDR included', async () => {
    const { key } = await account('professional');
    const res = await create(key, { url: 'https://hooks.example.com/each', currencies: allCodes });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(sorted(res.body.subscription.currencies)).toEqual(sorted(allCodes));
    const single = await create(key, { url: 'https://hooks.example.com/twi', currencies: ['TWI'] });
    expect(single.status).toBe(200);
    expect(single.body.subscription.currencies).toEqual(['TWI']);
  });

  it('a description of 200 characters, the most allowed, is kept as sent', async () => {
    const { key } = await account('professional');
    const description = 'Ä'.repeat(100) + 'x'.repeat(100);
    const res = await create(key, { url: 'https://hooks.example.com/long', description });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.subscription.description).toBe(description);
  });

  // D26 counts characters, not UTF-16 code units: an emoji is one.
  it('a description of 200 emoji is 200 characters and is accepted; 201 are not', async () => {
    const { key } = await account('professional');
    const description = '\u{1F4C8}'.repeat(200);
    expect([...description]).toHaveLength(200);
    const res = await create(key, { url: 'https://hooks.example.com/emoji', description });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.subscription.description).toBe(description);
    expectError(await create(key, { url: 'https://hooks.example.com/emoji', description: '\u{1F4C8}'.repeat(201) }), 400, 'bad_request');
  });

  it('currencies left out are stored as "every code, now and later"; a full list as given is stored as that list', async () => {
    const { key } = await account('professional');
    const all = await create(key, { url: 'https://hooks.example.com/later' });
    const listed = await create(key, { url: 'https://hooks.example.com/fixed', currencies: allCodes });
    const rows = await t.db
      .selectFrom('webhook_subscriptions')
      .select(['id', 'currencies'])
      .where('id', 'in', [all.body.subscription.id, listed.body.subscription.id])
      .execute();
    const byId = Object.fromEntries(rows.map((r) => [r.id, r.currencies]));
    expect(byId[all.body.subscription.id]).toBeNull();
    expect(sorted(byId[listed.body.subscription.id] ?? [])).toEqual(sorted(allCodes));
  });

  it('a url of exactly 2048 characters is accepted', async () => {
    const { key } = await account('professional');
    const prefix = 'https://hooks.example.com/';
    const url = prefix + 'a'.repeat(2048 - prefix.length);
    expect(url).toHaveLength(2048);
    const res = await create(key, { url });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.subscription.url).toBe(url);
  });

  it('a url with a port, a query and a fragment-free path is kept as sent', async () => {
    const { key } = await account('professional');
    const url = 'https://hooks.example.com:8443/in/rates?source=aud-rates&v=2';
    const res = await create(key, { url });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.subscription.url).toBe(url);
  });

  it('a body of exactly 16 KiB (16384 bytes) is read', async () => {
    const { key } = await account('professional');
    const json = JSON.stringify({ url: 'https://hooks.example.com/big', description: 'padded body' });
    const body = json + ' '.repeat(16384 - Buffer.byteLength(json)); // JSON allows trailing white space
    expect(Buffer.byteLength(body)).toBe(16384);
    const res = await create(key, body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.subscription.description).toBe('padded body');
  });

  it('Content-Type application/json with a charset, in any case, is accepted', async () => {
    const { key } = await account('professional');
    for (const type of ['application/json; charset=utf-8', 'Application/JSON']) {
      const res = await t.json(PATH, { key, method: 'POST', headers: { 'Content-Type': type }, body: { url: 'https://hooks.example.com/ct' } });
      expect(res.status, `${type}: ${JSON.stringify(res.body)}`).toBe(200);
    }
  });

  it('the host name is resolved and checked at creation', async () => {
    const { key } = await account('professional');
    asked.length = 0;
    expect((await create(key, { url: 'https://v6.example.com/hook' })).status).toBe(200);
    expect(asked).toContain('v6.example.com');
  });

  it('a public IP literal is accepted without any lookup', async () => {
    const { key } = await account('professional');
    asked.length = 0;
    const v4 = await create(key, { url: `https://${PUBLIC_V4}/hook` });
    expect(v4.status, JSON.stringify(v4.body)).toBe(200);
    expect(v4.body.subscription.url).toBe(`https://${PUBLIC_V4}/hook`);
    const v6 = await create(key, { url: `https://[${PUBLIC_V6}]/hook` });
    expect(v6.status, JSON.stringify(v6.body)).toBe(200);
    expect(asked).toEqual([]);
  });

  it('the new subscription is active, with no failures and no success yet, in the list', async () => {
    const { key } = await account('professional');
    const created = await create(key, { url: 'https://hooks.example.com/listed', currencies: ['NZD'] });
    const listed = await list(key);
    expect(listed.body.subscriptions).toEqual([
      {
        ...created.body.subscription,
        isActive: true,
        failureCount: 0,
        lastSuccessAt: null,
        createdAt: expect.any(String),
      },
    ]);
  });
});

describe('the signing secret at rest (D26)', () => {
  it('is stored encrypted: the row holds a v1. sealed value, never the secret nor its random part', async () => {
    const { key } = await account('professional');
    const { body } = await create(key);
    const row = await t.db.selectFrom('webhook_subscriptions').selectAll().where('id', '=', body.subscription.id).executeTakeFirstOrThrow();
    const secret: string = body.signingSecret;
    const random = secret.slice('whsec_'.length);
    expect(row.secret_ciphertext.startsWith('v1.')).toBe(true);
    expect(row.secret_ciphertext).not.toContain(secret);
    expect(row.secret_ciphertext).not.toContain(random);
    expect(row.secret_ciphertext).not.toContain(Buffer.from(random, 'base64url').toString('hex'));
    expect(row.secret_ciphertext).not.toContain(Buffer.from(random, 'base64url').toString('base64'));
    // nothing else in the row carries it either
    expect(JSON.stringify(row)).not.toContain(random);
  });

  it('two subscriptions never share a sealed value', async () => {
    const { key } = await account('professional');
    const a = await create(key);
    const b = await create(key);
    const rows = await t.db
      .selectFrom('webhook_subscriptions')
      .select('secret_ciphertext')
      .where('id', 'in', [a.body.subscription.id, b.body.subscription.id])
      .execute();
    expect(rows).toHaveLength(2);
    expect(rows[0]!.secret_ciphertext).not.toBe(rows[1]!.secret_ciphertext);
  });
});

describe('plans without webhooks: Free and Starter', () => {
  it.each(['free', 'starter'] as const)('%s: 403 webhooks_not_available, and nothing is stored', async (plan) => {
    const { key } = await account(plan);
    const res = await create(key);
    expectError(res, 403, 'webhooks_not_available', /Professional/);
    const listed = await list(key);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ success: true, subscriptions: [], limit: 0 });
  });
});

describe("each plan's subscription count (docs/api.md §8)", () => {
  it.each([
    ['professional', 3],
    ['business', 10],
    ['enterprise', 50],
  ] as const)('%s: %i subscriptions, then 403 subscription_limit_reached', async (plan, count) => {
    const { key } = await account(plan);
    await fill(key, count);
    const refused = await create(key, { url: 'https://hooks.example.com/one-too-many' });
    expectError(refused, 403, 'subscription_limit_reached');
    expect(refused.body.error.info).toContain(String(count));
    const listed = await list(key);
    expect(listed.body.subscriptions).toHaveLength(count);
    expect(listed.body.limit).toBe(count);
  });

  it('inactive subscriptions count too', async () => {
    const { key } = await account('professional');
    const ids = await fill(key, 3);
    for (const id of ids) {
      const patched = await t.json(`${PATH}/${id}`, { key, method: 'PATCH', headers: JSON_TYPE, body: { isActive: false } });
      expect(patched.status).toBe(200);
    }
    expectError(await create(key), 403, 'subscription_limit_reached');
  });

  it('deleting one frees its place', async () => {
    const { key } = await account('professional');
    const ids = await fill(key, 3);
    expectError(await create(key), 403, 'subscription_limit_reached');
    expect((await t.json(`${PATH}/${ids[1]}`, { key, method: 'DELETE' })).status).toBe(200);
    expect((await create(key)).status).toBe(200);
    expectError(await create(key), 403, 'subscription_limit_reached');
  });

  it('the count is per account: another account on the same plan is not affected', async () => {
    const full = await account('professional');
    await fill(full.key, 3);
    const other = await account('professional');
    expect((await create(other.key)).status).toBe(200);
  });

  it('the count is per account, not per key: a second key of the same account shares it', async () => {
    const { key, email } = await account('professional');
    await fill(key, 2);
    const second = await t.operator(graphql('mutation($e: EmailAddress!) { createApiKey(email: $e) { key } }'), { e: email });
    expect(second.errors).toBeUndefined();
    const secondKey: string = second.data!.createApiKey.key;
    expect((await create(secondKey)).status).toBe(200);
    expectError(await create(key), 403, 'subscription_limit_reached');
    expectError(await create(secondKey), 403, 'subscription_limit_reached');
    expect((await list(secondKey)).body.subscriptions).toHaveLength(3);
  });

  it('five creations racing for the last place: exactly one wins', async () => {
    const { key } = await account('professional');
    await fill(key, 2);
    const raced = await Promise.all(Array.from({ length: 5 }, (_, i) => create(key, { url: `https://hooks.example.com/race/${i}` })));
    const statuses = raced.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 403, 403, 403, 403]);
    for (const res of raced.filter((r) => r.status === 403)) expectError(res, 403, 'subscription_limit_reached');
    const listed = await list(key);
    expect(listed.body.subscriptions).toHaveLength(3);
    const rows = await t.db
      .selectFrom('webhook_subscriptions')
      .select('id')
      .where(
        'id',
        'in',
        listed.body.subscriptions.map((s: { id: string }) => s.id),
      )
      .execute();
    expect(rows).toHaveLength(3);
  });

  it('racing from empty on Professional: never more than 3', async () => {
    const { key } = await account('professional');
    const raced = await Promise.all(Array.from({ length: 8 }, () => create(key)));
    expect(raced.filter((r) => r.status === 200)).toHaveLength(3);
    expect(raced.filter((r) => r.status === 403)).toHaveLength(5);
    expect((await list(key)).body.subscriptions).toHaveLength(3);
  });
});

describe('a plan change applies to the count at once', () => {
  it('upgrading from Starter to Professional allows webhooks at once', async () => {
    const { key, email } = await account('starter');
    expectError(await create(key), 403, 'webhooks_not_available');
    await setPlan(email, 'professional');
    expect((await create(key)).status).toBe(200);
    expect((await list(key)).body.limit).toBe(3);
  });

  it('upgrading from Professional to Business raises the count from 3 to 10 at once', async () => {
    const { key, email } = await account('professional');
    await fill(key, 3);
    expectError(await create(key), 403, 'subscription_limit_reached');
    await setPlan(email, 'business');
    expect((await create(key)).status).toBe(200);
    expect((await list(key)).body.limit).toBe(10);
  });

  it('downgrading below the number held keeps them, refuses new ones and lists the new limit', async () => {
    const { key, email } = await account('business');
    const ids = await fill(key, 4);
    await setPlan(email, 'professional');
    expectError(await create(key), 403, 'subscription_limit_reached');
    const listed = await list(key);
    expect(listed.body.limit).toBe(3);
    expect(listed.body.subscriptions.map((s: { id: string }) => s.id)).toEqual(ids);
    // two deletions bring it below the new limit again
    for (const id of ids.slice(0, 2)) expect((await t.json(`${PATH}/${id}`, { key, method: 'DELETE' })).status).toBe(200);
    expect((await create(key)).status).toBe(200);
    expectError(await create(key), 403, 'subscription_limit_reached');
  });

  it('downgrading to Starter: no new subscriptions, but the existing ones can be listed (limit 0) and deleted', async () => {
    const { key, email } = await account('professional');
    const [id] = await fill(key, 1);
    await setPlan(email, 'starter');
    expectError(await create(key), 403, 'webhooks_not_available');
    const listed = await list(key);
    expect(listed.status).toBe(200);
    expect(listed.body.limit).toBe(0);
    expect(listed.body.subscriptions.map((s: { id: string }) => s.id)).toEqual([id]);
    expect((await t.json(`${PATH}/${id}`, { key, method: 'DELETE' })).status).toBe(200);
    expect((await list(key)).body).toEqual({ success: true, subscriptions: [], limit: 0 });
  });
});
