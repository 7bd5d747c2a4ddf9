// Who the client is (src/rest/client-address.ts): the socket's peer, or the forwarded address from
// a trusted proxy. The HTTPS rule and the keyless limits read it.
import { identifyPeer, type TrustedProxies } from '../client-address.js';
import type { Step } from '../exchange.js';

export function identifyClient(trustedProxies: TrustedProxies): Step {
  return (exchange, next) => {
    const { request } = exchange;
    exchange.peer = identifyPeer(request.remoteAddress, request.header('x-forwarded-for'), trustedProxies);
    return next(exchange);
  };
}
