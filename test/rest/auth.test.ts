// Bearer API keys on the data endpoints (docs/api.md §5, D11, D12, D18 in docs/decisions.md) and
// the order of checks.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../support/app.js';
import { expectError } from '../support/expect.js';
import { graphql } from '../../src/graphql.js';

const KEYED = [
  '/latest',
  '/latest/USD',
  '/timeseries?start_date=2023-01-03&end_date=2023-01-04',
  '/2023-01-03',
  '/2023-01-03/USD',
  '/convert?from=USD&to=EUR&amount=1&date=2023-01-03',
];
const REVOKE = graphql('mutation($p: Text!) { revokeApiKey(prefix: $p) { id } }');
const SET_STATUS = graphql('mutation($e: EmailAddress!, $s: AccountStatus!) { setAccountStatus(email: $e, status: $s) { status } }');
const ID56 = 'Ab3'.repeat(18) + 'xy'; // 56 characters of [A-Za-z0-9]

const t = appForFile({ now: '2026-05-12T03:00:00Z' }, 'f11.1-data.csv');

const withAuthorization = (path: string, authorization: string) => t.json(path, { headers: { Authorization: authorization } });

describe('a valid key', () => {
  it.each(KEYED)('opens %s', async (path) => {
    const key = await t.createKey();
    expect((await t.json(path, { key })).status).toBe(200);
  });

  it('is accepted with the scheme in any case', async () => {
    const key = await t.createKey();
    expect((await withAuthorization('/latest/USD', `bearer ${key}`)).status).toBe(200);
  });

  it('has the documented shape: <suburb>_<56 alphanumerics>', async () => {
    const key = await t.createKey();
    expect(key).toMatch(/^[a-z]+[0-9]*_[A-Za-z0-9]{56}$/);
  });
});

describe('no key', () => {
  it.each(KEYED)('401 unauthorized on %s', async (path) => {
    expectError(await t.json(path), 401, 'unauthorized', /key/i);
  });

  it.each(['/', '/status', '/symbols', '/convert?from=USD&to=EUR&amount=1'])('is fine on the public %s', async (path) => {
    expect((await t.json(path)).status).toBe(200);
  });
});

describe('a bad key', () => {
  const cases: [string, string][] = [
    ['a malformed key (Bearer abc)', 'Bearer abc'],
    ['Bearer with no key', 'Bearer'],
    ['another scheme', `Basic ${Buffer.from('user:pass').toString('base64')}`],
    ['the key without a scheme', `sydney_${ID56}`],
    ['an upper-case prefix', `Bearer Sydney_${ID56}`],
    ['an identifier one short', `Bearer sydney_${ID56.slice(1)}`],
    ['an identifier one long', `Bearer sydney_${ID56}Z`],
    ['a dash instead of the underscore', `Bearer sydney-${ID56}`],
    ['a symbol in the identifier', `Bearer sydney_${ID56.slice(1)}!`],
    ['an unknown, well-shaped key', `Bearer sydney_${ID56}`],
  ];

  it.each(cases)('401 invalid_api_key for %s', async (_what, authorization) => {
    expectError(await withAuthorization('/latest', authorization), 401, 'invalid_api_key');
  });

  it.each(cases)('401 invalid_api_key on /convert too, not free mode, for %s', async (_what, authorization) => {
    const res = await withAuthorization('/convert?from=USD&to=EUR&amount=1', authorization);
    expectError(res, 401, 'invalid_api_key');
    expect(res.body).not.toHaveProperty('free');
  });

  it('a mistyped key (one character changed) is 401 invalid_api_key', async () => {
    const key = await t.createKey();
    const last = key.at(-1) === 'A' ? 'B' : 'A';
    expectError(await t.json('/latest', { key: key.slice(0, -1) + last }), 401, 'invalid_api_key');
  });
});

describe('revoked keys', () => {
  it('a revoked key stops working at once: 401 invalid_api_key, on /convert as well', async () => {
    const key = await t.createKey();
    expect((await t.json('/latest', { key })).status).toBe(200);
    const revoked = await t.operator(REVOKE, { p: key.split('_')[0]! });
    expect(revoked.errors).toBeUndefined();
    expectError(await t.json('/latest', { key }), 401, 'invalid_api_key');
    expectError(await t.json('/convert?from=USD&to=EUR&amount=1', { key }), 401, 'invalid_api_key');
  });

  it('on a single-key plan a new key replaces the old one, which stops working (docs/api.md §3)', async () => {
    const email = `starter-${Date.now()}@example.test`;
    const first = await t.createKey('starter', email);
    expect((await t.json('/latest', { key: first })).status).toBe(200);
    const second = await t.operator(graphql('mutation($e: EmailAddress!) { createApiKey(email: $e) { key } }'), { e: email });
    expect(second.errors).toBeUndefined();
    expectError(await t.json('/latest', { key: first }), 401, 'invalid_api_key');
    expect((await t.json('/latest', { key: second.data!.createApiKey.key })).status).toBe(200);
  });

  it('on Professional each key is revoked on its own', async () => {
    const email = `pro-${Date.now()}@example.test`;
    const first = await t.createKey('professional', email);
    const second = (await t.operator(graphql('mutation($e: EmailAddress!) { createApiKey(email: $e) { key } }'), { e: email })).data!.createApiKey.key;
    await t.operator(REVOKE, { p: first.split('_')[0]! });
    expectError(await t.json('/latest', { key: first }), 401, 'invalid_api_key');
    expect((await t.json('/latest', { key: second })).status).toBe(200);
  });
});

describe('suspended accounts', () => {
  it('401 account_suspended while suspended; reinstating restores access', async () => {
    const email = `suspend-${Date.now()}@example.test`;
    const key = await t.createKey('professional', email);
    expect((await t.json('/latest', { key })).status).toBe(200);

    expect((await t.operator(SET_STATUS, { e: email, s: 'suspended' })).errors).toBeUndefined();
    expectError(await t.json('/latest', { key }), 401, 'account_suspended', /suspended/);
    expectError(await t.json('/2023-01-03/USD', { key }), 401, 'account_suspended');
    expectError(await t.json('/convert?from=USD&to=EUR&amount=1', { key }), 401, 'account_suspended');

    expect((await t.operator(SET_STATUS, { e: email, s: 'active' })).errors).toBeUndefined();
    expect((await t.json('/latest', { key })).status).toBe(200);
  });
});

describe('order of checks (D11): method → authentication → parameters → data', () => {
  it.each(['POST', 'PUT', 'DELETE', 'PATCH'])('%s to a keyed endpoint without a key is 405, not 401', async (method) => {
    const res = await t.json('/latest', { method });
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });

  it('a POST with a bad key is 405 too', async () => {
    expectError(await t.json('/2023-01-03', { method: 'POST', headers: { Authorization: 'Bearer abc' } }), 405, 'method_not_allowed');
  });

  it.each([
    '/latest?symbols=XYZ',
    '/latest?base=USD',
    '/latest?foo=1',
    '/latest/XYZ',
    '/latest/US',
    '/2024-02-30',
    '/2024-01-05/XYZ',
    '/timeseries',
    '/timeseries?start_date=2024-01-31&end_date=2024-01-01',
  ])('no key and bad parameters is 401, not 400: %s', async (path) => {
    expectError(await t.json(path), 401, 'unauthorized');
  });

  it.each(['/latest?symbols=XYZ', '/2024-02-30', '/convert?from=XYZ&to=EUR&amount=1'])('a bad key and bad parameters is 401, not 400: %s', async (path) => {
    expectError(await t.json(path, { headers: { Authorization: 'Bearer abc' } }), 401, 'invalid_api_key');
  });

  it('no key on a date without data is 401, not 404', async () => {
    expectError(await t.json('/2024-01-06'), 401, 'unauthorized');
  });

  it('keyless /convert with date is 401 unauthorized (historical conversion needs a key)', async () => {
    const res = await t.json('/convert?from=USD&to=EUR&amount=1&date=2023-01-03');
    expectError(res, 401, 'unauthorized', /key/i);
    expect(res.body).not.toHaveProperty('free');
  });

  it('keyless /convert with date and a bad amount is 401: the date needs a key before anything is validated', async () => {
    expectError(await t.json('/convert?from=USD&to=EUR&amount=abc&date=2023-01-03'), 401, 'unauthorized');
  });

  it('keyless /convert with an impossible date is 401 too', async () => {
    expectError(await t.json('/convert?from=USD&to=EUR&amount=1&date=2024-02-30'), 401, 'unauthorized');
  });

  it('with a key, 400 comes before 404', async () => {
    const key = await t.createKey();
    expectError(await t.json('/2024-01-06/XYZ', { key }), 400, 'bad_request');
    expectError(await t.json('/2024-01-06', { key }), 404, 'not_found');
  });
});
