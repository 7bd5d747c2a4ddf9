// D21 (docs/decisions.md): every response carries X-Request-Id, the client's own when it is safe to echo.
import { requestIdFrom } from '../../http/request-id.js';
import type { Step } from '../exchange.js';

export const requestId: Step = (exchange, next) => {
  exchange.requestId = requestIdFrom(exchange.request.header('x-request-id'));
  exchange.headers['X-Request-Id'] = exchange.requestId;
  return next(exchange);
};
