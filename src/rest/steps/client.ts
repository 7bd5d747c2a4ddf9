// Who the client is (src/rest/client-address.ts): the socket's peer, or the forwarded address from
// a trusted proxy. The HTTPS rule and the keyless limits read it.
import { forwardedPeer, socketPeer, type TrustedProxies } from '../client-address.js';
import type { Step } from '../exchange.js';

export function identifyClient(trustedProxies: TrustedProxies): Step {
  return (exchange, next) => {
    const { request } = exchange;
    const socket = socketPeer(request.remoteAddress, trustedProxies);
    exchange.peer = forwardedPeer(socket, request.header('x-forwarded-for'), trustedProxies);
    return next(exchange);
  };
}
