// CORS (D25 in docs/decisions.md): the data endpoints may be read from any origin, and answer a
// preflight; the account's own endpoints (webhook subscriptions, alerts), the dashboard and MCP
// send no CORS headers at all.
import type { Step } from '../exchange.js';

const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers':
    'ETag, Retry-After, X-Request-Id, X-Data-Stale, X-RBA-Source-Date, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Window, X-RateLimit-Reset, X-RateLimit-Limit-Monthly, X-RateLimit-Remaining-Monthly',
};

/** On the way out, every answer of a path where CORS applies (an unknown path's included). */
export const corsHeaders: Step = async (exchange, next) => {
  await next(exchange);
  if (exchange.cors) Object.assign(exchange.headers, CORS_HEADERS);
};

/** A preflight's answer (OPTIONS, src/edge.ts) on a path where CORS applies. */
export function preflightHeaders(allow: string): Record<string, string> {
  return {
    'Access-Control-Allow-Headers': 'Authorization, Content-Type, If-None-Match',
    'Access-Control-Max-Age': '86400',
    'Access-Control-Allow-Methods': allow,
  };
}
