// CORS (D25 in docs/decisions.md): the data endpoints may be read from any origin, and answer a
// preflight; the account's own endpoints (webhook subscriptions) send no CORS headers at all.
import type { Step } from '../exchange.js';

const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers':
    'ETag, Retry-After, X-Request-Id, X-Data-Stale, X-RBA-Source-Date, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Window, X-RateLimit-Reset, X-RateLimit-Limit-Monthly, X-RateLimit-Remaining-Monthly',
};
const PREFLIGHT_HEADERS = {
  'Access-Control-Allow-Headers': 'Authorization, Content-Type, If-None-Match',
  'Access-Control-Max-Age': '86400',
};

/** On the way out, every answer but the account endpoints' (an unknown path's included). */
export const corsHeaders: Step = async (exchange, next) => {
  await next(exchange);
  if ((exchange.place ?? exchange.path)?.cors !== false) Object.assign(exchange.headers, CORS_HEADERS);
};

/** OPTIONS on a known path: 204 with its methods, and the preflight headers where CORS applies. */
export const preflight: Step = (exchange, next) => {
  if (exchange.request.method !== 'OPTIONS') return next(exchange);
  const { allow, cors } = exchange.path!;
  exchange.answer = {
    status: 204,
    body: null,
    headers: cors ? { ...PREFLIGHT_HEADERS, 'Access-Control-Allow-Methods': allow, Allow: allow } : { Allow: allow },
  };
  return Promise.resolve();
};
