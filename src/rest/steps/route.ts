// Which endpoint a path is (src/rest/router.ts): an unknown path is 404.
import { NotFoundError } from '../../errors.js';
import type { Step } from '../exchange.js';
import { createRouter } from '../router.js';
import type { Route } from '../routes.js';

export function findRoute(table: readonly Route[]): Step {
  const match = createRouter(table);
  return (exchange, next) => {
    const { pathname } = exchange.request.url;
    const found = match(pathname);
    if (!found) throw new NotFoundError(`Unknown endpoint ${pathname}; see the documentation for the endpoints`);
    exchange.path = found.path;
    exchange.params = found.params;
    return next(exchange);
  };
}
