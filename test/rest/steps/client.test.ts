// The client (src/rest/client-address.ts): the socket's peer, or the forwarded address from a trusted proxy.
import { expect, it } from 'vitest';
import { parseTrustedProxies } from '../../../src/rest/client-address.js';
import { identifyClient } from '../../../src/rest/steps/client.js';
import { exchangeOf, recordingNext } from './support.js';

const step = identifyClient(parseTrustedProxies('10.0.0.1'));

async function peerOf(remoteAddress: string, headers: Record<string, string> = {}) {
  const exchange = exchangeOf('/latest', { remoteAddress, headers });
  const next = recordingNext();
  await step(exchange, next);
  expect(next.calls).toBe(1);
  return exchange.peer!;
}

it('is the socket peer without a proxy', async () => {
  expect(await peerOf('203.0.113.7')).toMatchObject({ client: '203.0.113.7', socketLoopback: false, viaTrustedProxy: false });
  expect((await peerOf('127.0.0.1')).socketLoopback).toBe(true);
});

it('ignores X-Forwarded-For from an untrusted peer', async () => {
  expect((await peerOf('203.0.113.7', { 'X-Forwarded-For': '198.51.100.1' })).client).toBe('203.0.113.7');
});

it('takes the forwarded address from the trusted proxy', async () => {
  expect(await peerOf('10.0.0.1', { 'X-Forwarded-For': 'junk, 198.51.100.1' })).toMatchObject({
    client: '198.51.100.1',
    socketLoopback: false,
    viaTrustedProxy: true,
  });
});

it('groups IPv6 clients by their /64, keeping the whole address beside it', async () => {
  const peer = await peerOf('2001:db8:1:2:3:4:5:6');
  expect(peer.client).toBe('2001:db8:1:2::/64');
  expect(peer.address.toString()).toBe('2001:db8:1:2:3:4:5:6');
});
