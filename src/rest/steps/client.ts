// Who the client is (src/rest/client-address.ts): the socket's peer, or the forwarded address from
// a trusted proxy. The HTTPS rule and the keyless limits read it.
import { identifyPeer, type Peer, type TrustedProxies } from '../client-address.js';
import type { Step } from '../exchange.js';

const MAX_KNOWN_PEERS = 10_000;

export function identifyClient(trustedProxies: TrustedProxies): Step {
  // Most requests come from a few addresses without forwarding headers: each is parsed once.
  const peers = new Map<string, Peer>();
  return (exchange, next) => {
    const { request } = exchange;
    const forwardedFor = request.header('x-forwarded-for');
    const address = request.remoteAddress;
    if (forwardedFor !== null || address === undefined) {
      exchange.peer = identifyPeer(address, forwardedFor, trustedProxies);
    } else {
      let peer = peers.get(address);
      if (!peer) {
        if (peers.size >= MAX_KNOWN_PEERS) peers.clear();
        peers.set(address, (peer = identifyPeer(address, null, trustedProxies)));
      }
      exchange.peer = peer;
    }
    return next(exchange);
  };
}
