// The error envelope of docs/api.md §7: whatever a later step throws becomes the answer. Expected
// failures (domain errors, HTTP refusals) keep their code and message; anything else is logged and
// answered 503 with the request id, never a stack trace.
import { GraphQLError } from 'graphql';
import type { Logger } from 'pino';
import { DomainError } from '../../errors.js';
import { errorEnvelope, type RefusalCode } from '../../http/error-status.js';
import type { Answer, Step } from '../exchange.js';
import { HttpError } from '../../http/http-errors.js';

function refusal(code: RefusalCode, info: string, headers: Record<string, string>): Answer {
  const { status, body } = errorEnvelope(code, info);
  headers['Cache-Control'] = 'no-store';
  return { status, body, headers };
}

/** The answer for what a step threw. */
export function answerOf(error: unknown, requestId: string, logger: Logger): Answer {
  // GraphQL execution wraps what a resolver throws; the domain's own error is inside.
  const original = error instanceof GraphQLError && error.originalError ? error.originalError : error;
  if (original instanceof HttpError) return refusal(original.code, original.message, { ...original.headers });
  if (original instanceof DomainError) {
    const challenge = original.code === 'unauthorized' || original.code === 'invalid_api_key';
    return refusal(original.code, original.message, challenge ? { 'WWW-Authenticate': 'Bearer' } : {});
  }
  // A GraphQL error of its own (no resolver behind it) is about the request: a variable the schema refused.
  if (error instanceof GraphQLError && error.path === undefined) return refusal('bad_request', error.message, {});
  logger.error({ err: original, requestId }, 'request failed');
  return refusal('service_unavailable', `The service could not answer this request; try again later (request ${requestId})`, {});
}

export function errorEnvelopes(logger: Logger): Step {
  return async (exchange, next) => {
    try {
      await next(exchange);
    } catch (error) {
      exchange.answer = answerOf(error, exchange.requestId, logger);
      // The envelope replaces the answer, so the tag of the answer it replaces (set by the etag step,
      // which runs inside the limits) does not describe it: a 429 carries no ETag.
      delete exchange.headers.ETag;
    }
  };
}
