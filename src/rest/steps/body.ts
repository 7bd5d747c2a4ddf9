// Request bodies (D26 in docs/decisions.md): a route that takes one gets JSON of at most 16 KiB,
// read before its parameters are mapped; what the JSON holds is its `body` schema's to check
// (src/rest/body.ts).
import type { Step } from '../exchange.js';
import { checkJsonContentType, MAX_BODY_BYTES } from '../body.js';

export const readBody: Step = (exchange, next) => {
  if (!exchange.route!.body) return next(exchange);
  checkJsonContentType(exchange.request.header('content-type'));
  return exchange.request.body(MAX_BODY_BYTES).then((body) => {
    exchange.body = body;
    return next(exchange);
  });
};
