// D20 (docs/decisions.md): TLS on the socket, or a trusted proxy saying https; plain HTTP only from
// this machine.
import type { Step } from '../exchange.js';
import { HttpsRequiredError } from '../http-errors.js';

export const requireHttps: Step = (exchange, next) => {
  const { request, peer } = exchange;
  if (request.encrypted) {
    exchange.https = true;
    return next(exchange);
  }
  const forwardedProto = peer!.viaTrustedProxy ? request.header('x-forwarded-proto') : null;
  if (forwardedProto !== null) {
    exchange.https = forwardedProto.split(',')[0]!.trim().toLowerCase() === 'https';
    if (exchange.https) return next(exchange);
  } else if (peer!.socketLoopback) {
    return next(exchange);
  }
  throw new HttpsRequiredError('HTTPS is required: plain HTTP is refused');
};
