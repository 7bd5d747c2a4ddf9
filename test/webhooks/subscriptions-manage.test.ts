// Managing subscriptions (docs/api.md §3 on subscription activity, §4.2; D26, D28 in
// docs/decisions.md): GET lists the caller's own without the secret, DELETE removes one, PATCH
// {isActive} deactivates or reactivates one. An unknown id and another account's id answer the same
// 404.
// Host names reach an injected resolver only: nothing here looks up a real name.
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Plan } from '../../src/domain/plans.js';
import { appForFile } from '../support/app.js';
import { expectError, ISO_INSTANT, type JsonResponse } from '../support/expect.js';
import { tableResolver } from '../support/dns.js';
import { graphql } from '../../src/graphql.js';

const PATH = '/api/webhook-subscriptions';
const { resolve } = tableResolver({ 'hooks.example.com': ['93.184.216.34'] });

const SET_PLAN = graphql('mutation($e: EmailAddress!, $p: Plan!) { setAccountPlan(email: $e, plan: $p) { plan } }');
const LIST_FIELDS = ['createdAt', 'currencies', 'description', 'failureCount', 'id', 'isActive', 'lastSuccessAt', 'url'];

const t = appForFile({ webhookNetwork: { resolve } }, 'f11.1-data.csv');

const JSON_TYPE = { 'Content-Type': 'application/json' };

interface Created {
  id: string;
  secret: string;
  subscription: { id: string; url: string; currencies: string[]; description: string | null };
}

async function account(plan: Plan = 'professional'): Promise<{ key: string; email: string }> {
  const email = `manage-${plan}-${randomUUID()}@example.test`;
  return { key: await t.createKey(plan, email), email };
}

async function subscribe(key: string, body: Record<string, unknown> = {}): Promise<Created> {
  const res = await t.json(PATH, {
    key,
    method: 'POST',
    headers: JSON_TYPE,
    body: { url: `https://hooks.example.com/${randomUUID()}`, ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { id: res.body.subscription.id, secret: res.body.signingSecret, subscription: res.body.subscription };
}

const list = (key: string) => t.json(PATH, { key });
const remove = (key: string, id: string) => t.json(`${PATH}/${id}`, { key, method: 'DELETE' });
const patch = (key: string, id: string, body: unknown, headers: Record<string, string> = JSON_TYPE) =>
  t.json(`${PATH}/${id}`, { key, method: 'PATCH', headers, body });
const setRow = (id: string, values: { is_active?: boolean; failure_count?: number; last_success_at?: Date | null }) =>
  t.db.updateTable('webhook_subscriptions').set(values).where('id', '=', id).execute();
const unknownId = () => randomBytes(16).toString('hex');

/** Two 404s that must not let a caller tell "not yours" from "does not exist". */
function expectSameNotFound(a: JsonResponse, aId: string, b: JsonResponse, bId: string): void {
  expectError(a, 404, 'not_found');
  expectError(b, 404, 'not_found');
  expect(JSON.stringify(a.body).replaceAll(aId, '<id>')).toBe(JSON.stringify(b.body).replaceAll(bId, '<id>'));
  expect(a.headers.get('content-type')).toBe(b.headers.get('content-type'));
  expect(a.headers.get('cache-control')).toBe(b.headers.get('cache-control'));
}

describe('GET /api/webhook-subscriptions', () => {
  it('an account with none: an empty list and the plan limit', async () => {
    const { key } = await account('professional');
    const res = await list(key);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, subscriptions: [], limit: 3 });
  });

  it.each([
    ['free', 0],
    ['starter', 0],
    ['professional', 3],
    ['business', 10],
    ['enterprise', 50],
  ] as const)('works on %s, with limit %i', async (plan, limit) => {
    const { key } = await account(plan);
    const res = await list(key);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, subscriptions: [], limit });
  });

  it('lists the list fields of docs/api.md §2.11 and nothing else', async () => {
    const { key } = await account();
    const created = await subscribe(key, { currencies: ['usd', 'NZD'], description: 'ops' });
    const res = await list(key);
    expect(res.body.subscriptions).toHaveLength(1);
    const [item] = res.body.subscriptions;
    expect(Object.keys(item).sort()).toEqual(LIST_FIELDS);
    expect(item).toEqual({
      id: created.id,
      url: created.subscription.url,
      currencies: ['USD', 'NZD'],
      description: 'ops',
      isActive: true,
      failureCount: 0,
      lastSuccessAt: null,
      createdAt: expect.stringMatching(ISO_INSTANT),
    });
    expect(Number.isNaN(Date.parse(item.createdAt))).toBe(false);
  });

  it('never shows the signing secret', async () => {
    const { key } = await account();
    const created = await subscribe(key);
    const response = await t.request(PATH, { key });
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(text).toContain(created.id);
    expect(text).not.toContain(created.secret);
    expect(text).not.toContain(created.secret.slice('whsec_'.length));
    expect(text).not.toContain('signingSecret');
    expect(text).not.toContain('whsec_');
    expect(text).not.toContain('secret_ciphertext');
  });

  it("lists only the caller's own subscriptions", async () => {
    const mine = await account();
    const theirs = await account();
    const a = await subscribe(mine.key);
    const b = await subscribe(theirs.key);
    expect((await list(mine.key)).body.subscriptions.map((s: { id: string }) => s.id)).toEqual([a.id]);
    expect((await list(theirs.key)).body.subscriptions.map((s: { id: string }) => s.id)).toEqual([b.id]);
  });

  it('lists oldest first, with non-decreasing createdAt', async () => {
    const { key } = await account('business');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await subscribe(key, { description: `n${i}` })).id);
    const res = await list(key);
    expect(res.body.subscriptions.map((s: { id: string }) => s.id)).toEqual(ids);
    const times = res.body.subscriptions.map((s: { createdAt: string }) => Date.parse(s.createdAt));
    expect(times).toEqual([...times].sort((x, y) => x - y));
  });

  it('a subscription to every code lists the full current list', async () => {
    const { key } = await account();
    await subscribe(key);
    const symbols = Object.keys((await t.json('/symbols')).body.symbols).filter((c) => c !== 'AUD');
    const [item] = (await list(key)).body.subscriptions;
    expect([...item.currencies].sort()).toEqual(symbols.sort());
  });

  it('shows health as stored: failureCount, isActive and lastSuccessAt as an ISO 8601 instant', async () => {
    const { key } = await account();
    const { id } = await subscribe(key);
    await setRow(id, { is_active: false, failure_count: 10, last_success_at: new Date('2026-05-11T06:30:00Z') });
    const [item] = (await list(key)).body.subscriptions;
    expect(item).toMatchObject({ id, isActive: false, failureCount: 10 });
    expect(item.lastSuccessAt).toMatch(ISO_INSTANT);
    expect(new Date(item.lastSuccessAt).toISOString()).toBe('2026-05-11T06:30:00.000Z');
  });

  it('is not cacheable', async () => {
    const { key } = await account();
    expect((await list(key)).headers.get('cache-control')).toBe('no-store');
  });

  it('carries no CORS headers, and its preflight none either (D25: CORS on data endpoints only)', async () => {
    const { key } = await account();
    const listed = await list(key);
    expect(listed.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await t.request(PATH, { method: 'OPTIONS' });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('allow')).toBe('POST, GET, HEAD, OPTIONS');
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-methods')).toBeNull();
    // the data endpoints keep theirs
    expect((await t.request('/symbols')).headers.get('access-control-allow-origin')).toBe('*');
  });

  it('HEAD answers like GET without a body', async () => {
    const { key } = await account();
    const response = await t.request(PATH, { key, method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
  });

  it('an unknown query parameter is 400', async () => {
    const { key } = await account();
    expectError(await t.json(`${PATH}?page=2`, { key }), 400, 'bad_request');
  });
});

describe('DELETE /api/webhook-subscriptions/{id}', () => {
  it('removes the subscription: 200 with a message; the list no longer has it; a second delete is 404', async () => {
    const { key } = await account();
    const kept = await subscribe(key);
    const gone = await subscribe(key);
    const res = await remove(key, gone.id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ success: true, message: expect.any(String) });
    expect(res.body.message.length).toBeGreaterThan(5);
    expect((await list(key)).body.subscriptions.map((s: { id: string }) => s.id)).toEqual([kept.id]);
    expectError(await remove(key, gone.id), 404, 'not_found');
  });

  it('removes the stored row, secret included', async () => {
    const { key } = await account();
    const { id } = await subscribe(key);
    expect((await remove(key, id)).status).toBe(200);
    const rows = await t.db.selectFrom('webhook_subscriptions').select('id').where('id', '=', id).execute();
    expect(rows).toEqual([]);
  });

  it('a deleted subscription can be neither patched nor tested', async () => {
    const { key } = await account();
    const { id } = await subscribe(key);
    expect((await remove(key, id)).status).toBe(200);
    expectError(await patch(key, id, { isActive: true }), 404, 'not_found');
    expectError(await t.json(`${PATH}/${id}/test`, { key, method: 'POST' }), 404, 'not_found');
  });

  it('404 not_found for an unknown id', async () => {
    const { key } = await account();
    expectError(await remove(key, unknownId()), 404, 'not_found');
  });

  it.each([
    ['a short id', 'abc'],
    ['33 hex characters', 'a'.repeat(33)],
    ['non-hex characters', 'z'.repeat(32)],
    ['a UUID', randomUUID()],
    ['an SQL-ish id', "1' or '1'='1"],
  ])('404 not_found for a malformed id: %s', async (_what, id) => {
    const { key } = await account();
    await subscribe(key);
    expectError(await remove(key, encodeURIComponent(id)), 404, 'not_found');
    expect((await list(key)).body.subscriptions).toHaveLength(1);
  });

  it('404 for the upper-case spelling of a real id (ids are lower-case hex), which stays', async () => {
    const { key } = await account();
    const { id } = await subscribe(key);
    expectError(await remove(key, id.toUpperCase()), 404, 'not_found');
    expect((await list(key)).body.subscriptions.map((s: { id: string }) => s.id)).toEqual([id]);
  });

  it("another account's id is 404 exactly like an unknown id, and theirs stays", async () => {
    const mine = await account();
    const theirs = await account();
    const other = await subscribe(theirs.key);
    const missing = unknownId();
    expectSameNotFound(await remove(mine.key, other.id), other.id, await remove(mine.key, missing), missing);
    expect((await list(theirs.key)).body.subscriptions.map((s: { id: string }) => s.id)).toEqual([other.id]);
  });

  it('works on Free and Starter too, so a downgraded account can remove what it has', async () => {
    for (const plan of ['starter', 'free'] as const) {
      const { key, email } = await account('professional');
      const { id } = await subscribe(key);
      expect((await t.operator(SET_PLAN, { e: email, p: plan })).errors).toBeUndefined();
      const listed = await list(key);
      expect(listed.body.limit).toBe(0);
      expect(listed.body.subscriptions.map((s: { id: string }) => s.id)).toEqual([id]);
      const res = await remove(key, id);
      expect(res.status, `${plan}: ${JSON.stringify(res.body)}`).toBe(200);
      expect((await list(key)).body.subscriptions).toEqual([]);
    }
  });

  it('an unknown query parameter is 400 and deletes nothing', async () => {
    const { key } = await account();
    const { id } = await subscribe(key);
    expectError(await t.json(`${PATH}/${id}?force=1`, { key, method: 'DELETE' }), 400, 'bad_request');
    expect((await list(key)).body.subscriptions).toHaveLength(1);
  });
});

describe('PATCH /api/webhook-subscriptions/{id}', () => {
  it('{"isActive": false} deactivates; the answer is the subscription with the list fields', async () => {
    const { key } = await account();
    const created = await subscribe(key, { currencies: ['EUR'], description: 'pause me' });
    const res = await patch(key, created.id, { isActive: false });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['subscription', 'success']);
    expect(res.body.success).toBe(true);
    expect(Object.keys(res.body.subscription).sort()).toEqual(LIST_FIELDS);
    expect(res.body.subscription).toMatchObject({ ...created.subscription, isActive: false, failureCount: 0, lastSuccessAt: null });
    expect((await list(key)).body.subscriptions[0]).toEqual(res.body.subscription);
  });

  it('{"isActive": true} reactivates an auto-deactivated subscription and resets failureCount to 0 (D28)', async () => {
    const { key } = await account();
    const { id } = await subscribe(key);
    await setRow(id, { is_active: false, failure_count: 10 });
    expect((await list(key)).body.subscriptions[0]).toMatchObject({ isActive: false, failureCount: 10 });

    const res = await patch(key, id, { isActive: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.subscription).toMatchObject({ id, isActive: true, failureCount: 0 });
    expect((await list(key)).body.subscriptions[0]).toMatchObject({ id, isActive: true, failureCount: 0 });
    const row = await t.db.selectFrom('webhook_subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ is_active: true, failure_count: 0 });
  });

  it('reactivation keeps lastSuccessAt', async () => {
    const { key } = await account();
    const { id } = await subscribe(key);
    await setRow(id, { is_active: false, failure_count: 10, last_success_at: new Date('2026-05-01T06:00:00Z') });
    const res = await patch(key, id, { isActive: true });
    expect(new Date(res.body.subscription.lastSuccessAt).toISOString()).toBe('2026-05-01T06:00:00.000Z');
  });

  it('deactivate then reactivate round-trips; neither touches the secret', async () => {
    const { key } = await account();
    const { id } = await subscribe(key);
    const before = await t.db.selectFrom('webhook_subscriptions').select('secret_ciphertext').where('id', '=', id).executeTakeFirstOrThrow();
    expect((await patch(key, id, { isActive: false })).body.subscription.isActive).toBe(false);
    expect((await patch(key, id, { isActive: true })).body.subscription.isActive).toBe(true);
    const after = await t.db.selectFrom('webhook_subscriptions').select('secret_ciphertext').where('id', '=', id).executeTakeFirstOrThrow();
    expect(after.secret_ciphertext).toBe(before.secret_ciphertext);
  });

  it('never shows the signing secret', async () => {
    const { key } = await account();
    const created = await subscribe(key);
    const response = await t.request(`${PATH}/${created.id}`, { key, method: 'PATCH', headers: JSON_TYPE, body: { isActive: false } });
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(text).not.toContain(created.secret.slice('whsec_'.length));
    expect(text).not.toContain('signingSecret');
  });

  it.each([
    ['an empty object', {}],
    ['isActive as a string', { isActive: 'true' }],
    ['isActive as a number', { isActive: 1 }],
    ['isActive null', { isActive: null }],
    ['an unknown field beside isActive', { isActive: true, url: 'https://hooks.example.com/x' }],
    ['another field only', { active: true }],
    ['an array', [{ isActive: true }]],
    ['a bare boolean', true],
  ])('400 bad_request for %s, and nothing changes', async (_what, body) => {
    const { key } = await account();
    const { id } = await subscribe(key);
    await setRow(id, { is_active: false, failure_count: 10 });
    expectError(await patch(key, id, body), 400, 'bad_request');
    expect((await list(key)).body.subscriptions[0]).toMatchObject({ isActive: false, failureCount: 10 });
  });

  it('400 for malformed JSON, an empty body and a Content-Type other than JSON', async () => {
    const { key } = await account();
    const { id } = await subscribe(key);
    expectError(await patch(key, id, '{"isActive": tru'), 400, 'bad_request');
    expectError(await patch(key, id, ''), 400, 'bad_request');
    expectError(await patch(key, id, { isActive: false }, { 'Content-Type': 'text/plain' }), 400, 'bad_request');
    expectError(await patch(key, id, { isActive: false }, { 'Content-Type': 'application/x-www-form-urlencoded' }), 400, 'bad_request');
    expect((await list(key)).body.subscriptions[0].isActive).toBe(true);
  });

  it('404 not_found for an unknown id and a malformed id', async () => {
    const { key } = await account();
    expectError(await patch(key, unknownId(), { isActive: false }), 404, 'not_found');
    expectError(await patch(key, 'nope', { isActive: false }), 404, 'not_found');
  });

  it("another account's id is 404 exactly like an unknown id, and theirs is unchanged", async () => {
    const mine = await account();
    const theirs = await account();
    const other = await subscribe(theirs.key);
    const missing = unknownId();
    expectSameNotFound(await patch(mine.key, other.id, { isActive: false }), other.id, await patch(mine.key, missing, { isActive: false }), missing);
    expect((await list(theirs.key)).body.subscriptions[0]).toMatchObject({ id: other.id, isActive: true });
  });

  it('a bad body is 400 before the id is looked at (D11: parameters before data)', async () => {
    const { key } = await account();
    expectError(await patch(key, unknownId(), { isActive: 'yes' }), 400, 'bad_request');
  });

  it('after a downgrade to Starter: reactivation is 403 webhooks_not_available, deactivation still works', async () => {
    const { key, email } = await account('professional');
    const { id } = await subscribe(key);
    await setRow(id, { is_active: false, failure_count: 10 });
    expect((await t.operator(SET_PLAN, { e: email, p: 'starter' })).errors).toBeUndefined();
    expectError(await patch(key, id, { isActive: true }), 403, 'webhooks_not_available');
    expect((await list(key)).body.subscriptions[0]).toMatchObject({ isActive: false, failureCount: 10 });

    await setRow(id, { is_active: true });
    const off = await patch(key, id, { isActive: false });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body.subscription.isActive).toBe(false);
  });

  it('on Free, reactivation is 403 webhooks_not_available', async () => {
    const { key, email } = await account('professional');
    const { id } = await subscribe(key);
    await setRow(id, { is_active: false });
    expect((await t.operator(SET_PLAN, { e: email, p: 'free' })).errors).toBeUndefined();
    expectError(await patch(key, id, { isActive: true }), 403, 'webhooks_not_available');
  });
});

describe('quota (D17: webhook endpoints never count)', () => {
  it('creating, listing, patching and deleting subscriptions leaves the monthly quota untouched', async () => {
    const { key } = await account('professional');
    const remaining = async () => {
      const res = await t.json('/latest?symbols=USD', { key });
      expect(res.status).toBe(200);
      return Number(res.headers.get('x-ratelimit-remaining-monthly'));
    };
    const before = await remaining();
    const { id } = await subscribe(key);
    for (const res of [
      await list(key),
      await patch(key, id, { isActive: false }),
      await patch(key, id, { isActive: true }),
      await remove(key, id),
      await remove(key, id),
    ]) {
      expect(res.headers.get('x-ratelimit-remaining-monthly')).toBeNull();
      expect(res.headers.get('x-ratelimit-limit-monthly')).toBeNull();
    }
    // the second /latest is the only request counted since the first
    expect(await remaining()).toBe(before - 1);
  });
});
