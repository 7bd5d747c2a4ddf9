// Who is asking: a bearer key, or on the webhook endpoints a dashboard session whose changes carry
// its CSRF token (docs/api.md §4.2, §5; D12 in docs/decisions.md).
import { graphql } from '../../../src/graphql.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AccountSuspendedError, InvalidApiKeyError, UnauthorizedError } from '../../../src/errors.js';
import { csrfTokenOf } from '../../../src/http/session-cookie.js';
import { KeyAuthenticator } from '../../../src/rest/auth.js';
import { identifyPeer } from '../../../src/rest/client-address.js';
import type { Step } from '../../../src/rest/exchange.js';
import { authenticate } from '../../../src/rest/steps/authenticate.js';
import { Browser, startDashboardApp, type DashboardApp } from '../../support/dashboard.js';
import { recordingNext, routedExchange, type RequestParts } from './support.js';

let t: DashboardApp;
let step: Step;
let key: string;
let session: string;
beforeAll(async () => {
  t = await startDashboardApp();
  step = authenticate(new KeyAuthenticator(t.db), t.app.services);
  key = await t.createKey('professional');
  const browser = new Browser(t);
  await browser.signIn(t, 'steps@example.com');
  session = browser.cookies.get('session')!;
});
afterAll(() => t.close());

async function run(name: string, parts: RequestParts) {
  const exchange = routedExchange(name, '/', parts);
  // as the client step before it leaves it: a key's allowed addresses are checked against the peer
  exchange.peer = identifyPeer('127.0.0.1', null, []);
  const next = recordingNext();
  await step(exchange, next);
  expect(next.calls).toBe(1);
  return exchange;
}
const refusal = (name: string, parts: RequestParts) =>
  run(name, parts).then(
    () => null,
    (error: unknown) => error,
  );

it('reads no credentials where none are needed', async () => {
  const exchange = await run('Root', { headers: { Authorization: 'Bearer nonsense' } });
  expect(exchange.viewer).toBeNull();
});

it('takes a key', async () => {
  const exchange = await run('Latest', { headers: { Authorization: `Bearer ${key}` } });
  expect(exchange.viewer).toMatchObject({ plan: 'professional' });
});

it('a data endpoint without a key is 401 unauthorized; /convert without one goes on', async () => {
  expect(await refusal('Latest', {})).toBeInstanceOf(UnauthorizedError);
  expect((await run('Convert', {})).viewer).toBeNull();
});

it.each(['Bearer', 'Basic abc', 'Bearer sydney_notakey', `Bearer ${'a'.repeat(10_000)}`])('refuses Authorization: %s', async (header) => {
  expect(await refusal('Latest', { headers: { Authorization: header } })).toBeInstanceOf(InvalidApiKeyError);
});

it('takes a session cookie on the webhook endpoints, and a change with its CSRF token', async () => {
  const listed = await run('WebhookSubscriptions', { headers: { Cookie: `session=${session}` } });
  expect(listed.session!.account.email).toBe('steps@example.com');
  expect(listed.viewer).toBeNull();
  const created = await run('CreateWebhookSubscription', { method: 'POST', headers: { Cookie: `session=${session}`, 'X-CSRF-Token': csrfTokenOf(session) } });
  expect(created.session).not.toBeNull();
});

it('ignores the cookie on a data endpoint', async () => {
  expect(await refusal('Latest', { headers: { Cookie: `session=${session}` } })).toBeInstanceOf(UnauthorizedError);
});

it('a key wins over a session', async () => {
  const exchange = await run('WebhookSubscriptions', { headers: { Cookie: `session=${session}`, Authorization: `Bearer ${key}` } });
  expect(exchange.viewer).not.toBeNull();
  expect(exchange.session).toBeNull();
});

it.each([
  ['no credentials', { Cookie: undefined }, /API key is required/],
  ['an unknown session', { Cookie: `session=${'A'.repeat(43)}` }, /session has ended/],
  ['a malformed session', { Cookie: 'session=%%%' }, /session has ended/],
  ['the cookie under another name', { Cookie: '__Host-session=SESSION' }, /API key is required/],
])('on the webhook endpoints, %s is 401 invalid_api_key', async (_label, headers, info) => {
  const error = await refusal('WebhookSubscriptions', { headers: { Cookie: headers.Cookie?.replace('SESSION', session) ?? '' } });
  expect(error).toBeInstanceOf(InvalidApiKeyError);
  expect((error as Error).message).toMatch(info);
});

it.each([
  ['missing', undefined],
  ['empty', ''],
  ['of another session', csrfTokenOf('B'.repeat(43))],
  ['the session token itself', 'SESSION'],
])('a change with a CSRF token %s is 401 invalid_api_key', async (_label, token) => {
  const headers: Record<string, string> = { Cookie: `session=${session}` };
  if (token !== undefined) headers['X-CSRF-Token'] = token === 'SESSION' ? session : token;
  const error = await refusal('DeleteWebhookSubscription', { method: 'DELETE', headers });
  expect(error).toBeInstanceOf(InvalidApiKeyError);
  expect((error as Error).message).toMatch(/CSRF token/);
});

it('a suspended key is 401 account_suspended', async () => {
  const email = 'suspended-steps@example.com';
  const suspendedKey = await t.createKey('professional', email);
  await t.operator(graphql('mutation($e: EmailAddress!) { setAccountStatus(email: $e, status: suspended) { status } }'), { e: email });
  const keys = authenticate(new KeyAuthenticator(t.db), t.app.services);
  const exchange = routedExchange('Latest', '/', { headers: { Authorization: `Bearer ${suspendedKey}` } });
  exchange.peer = identifyPeer('127.0.0.1', null, []);
  await expect(keys(exchange, recordingNext())).rejects.toBeInstanceOf(AccountSuspendedError);
});
