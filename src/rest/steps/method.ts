// Methods (docs/api.md §4, D25 in docs/decisions.md): HEAD is answered as GET; a method the path
// does not answer is 405 with its Allow list. First of the refusals D11 orders.
import type { Step } from '../exchange.js';
import { MethodNotAllowedError } from '../http-errors.js';

export const checkMethod: Step = (exchange, next) => {
  const method = exchange.request.method === 'HEAD' ? 'GET' : exchange.request.method;
  const { routes, allow } = exchange.path!;
  for (const route of routes) {
    if (route.method === method) {
      exchange.route = route;
      return next(exchange);
    }
  }
  throw new MethodNotAllowedError(allow);
};
