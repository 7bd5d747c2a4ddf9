// Who the client is (src/rest/client-address.ts): the socket's peer, or the forwarded address from
// a trusted proxy. The HTTPS rule and the keyless limits read it.
import { forwardedPeer, socketPeer, type Peer, type TrustedProxies } from '../client-address.js';
import type { Step } from '../exchange.js';

export function identifyClient(trustedProxies: TrustedProxies): Step {
  // A connection's peer is the same for all of its requests, so its address is read once per
  // connection (`bench/pure-caches.ts` times that against reading it per request); the entry goes
  // with the connection.
  const socketPeers = new WeakMap<object, Peer>();
  return (exchange, next) => {
    const { request } = exchange;
    const { connection } = request;
    let socket = connection ? socketPeers.get(connection) : undefined;
    if (!socket) {
      socket = socketPeer(request.remoteAddress, trustedProxies);
      if (connection) socketPeers.set(connection, socket);
    }
    exchange.peer = forwardedPeer(socket, request.header('x-forwarded-for'), trustedProxies);
    return next(exchange);
  };
}
