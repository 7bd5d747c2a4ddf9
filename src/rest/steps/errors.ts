// Refusals (src/http/error-status.ts): whatever a later step throws becomes the answer, rendered by
// the place the request was routed to: the envelope of docs/api.md §7, or the dashboard's page.
// Anything no step foresaw is logged and answered 503 with the request id, never a stack trace.
import type { Logger } from 'pino';
import { errorEnvelope, refusalOf, type Refused } from '../../http/error-status.js';
import type { Answer, Exchange, Step } from '../exchange.js';

/** The envelope for a refusal; a fault's says only that the service could not answer, and the request's id. */
export function envelopeOf(refused: Refused | null, exchange: Exchange): Answer {
  const { code, info, headers } = refused ?? {
    code: 'service_unavailable',
    info: `The service could not answer this request; try again later (request ${exchange.requestId})`,
    headers: {},
  };
  const { status, body } = errorEnvelope(code, info);
  return { status, body, headers: { ...headers, 'Cache-Control': 'no-store' } };
}

/** Renders what a later step throws: by the endpoint's renderer, or `fallback` where there is none. */
export function renderRefusals(logger: Logger, fallback: (refused: Refused | null, exchange: Exchange) => Answer = envelopeOf): Step {
  return async (exchange, next) => {
    try {
      await next(exchange);
    } catch (error) {
      const refused = refusalOf(error);
      if (refused === null) logger.error({ err: error, requestId: exchange.requestId }, 'request failed');
      exchange.answer = (exchange.render ?? fallback)(refused, exchange);
      // The refusal replaces the answer, so the tag of the answer it replaces (set by the etag step,
      // which runs inside the limits) does not describe it: a 429 carries no ETag.
      delete exchange.headers.ETag;
    }
  };
}
