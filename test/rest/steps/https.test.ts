// D20 (docs/decisions.md): TLS, or a trusted proxy saying https; plain HTTP only from this machine.
import { expect, it } from 'vitest';
import { parseTrustedProxies } from '../../../src/rest/client-address.js';
import { HttpsRequiredError } from '../../../src/rest/http-errors.js';
import { identifyClient } from '../../../src/rest/steps/client.js';
import { requireHttps } from '../../../src/rest/steps/https.js';
import { exchangeOf, recordingNext, type RequestParts } from './support.js';

const client = identifyClient(parseTrustedProxies('10.0.0.1'));

async function run(parts: RequestParts) {
  const exchange = exchangeOf('/latest', parts);
  await client(exchange, recordingNext());
  const next = recordingNext();
  await requireHttps(exchange, next);
  return { https: exchange.https, calls: next.calls };
}

it.each([
  ['TLS from anywhere', { remoteAddress: '203.0.113.7', encrypted: true }, true],
  ['plain HTTP from this machine', { remoteAddress: '127.0.0.1' }, false],
  ['plain HTTP from ::1', { remoteAddress: '::1' }, false],
  ['this machine, whatever an untrusted X-Forwarded-Proto says', { remoteAddress: '127.0.0.1', headers: { 'X-Forwarded-Proto': 'http' } }, false],
  ['the trusted proxy saying https', { remoteAddress: '10.0.0.1', headers: { 'X-Forwarded-Proto': 'HTTPS, http' } }, true],
])('lets through %s', async (_label, parts, https) => {
  expect(await run(parts)).toEqual({ https, calls: 1 });
});

it.each([
  ['plain HTTP from elsewhere', { remoteAddress: '203.0.113.7' }],
  ['an untrusted peer claiming https', { remoteAddress: '203.0.113.7', headers: { 'X-Forwarded-Proto': 'https' } }],
  ['the trusted proxy saying http', { remoteAddress: '10.0.0.1', headers: { 'X-Forwarded-Proto': 'http' } }],
])('refuses %s with 403 https_required', async (_label, parts) => {
  await expect(run(parts)).rejects.toBeInstanceOf(HttpsRequiredError);
});
