// Refusals that exist only because the request came over HTTP: a method the path does not answer,
// plain HTTP where HTTPS is required (D20 in docs/decisions.md), a quota or limit with its
// X-RateLimit-* headers, and the listener's own limits. The domain's errors are src/errors.ts.
import { ExpectedError } from '../errors.js';

/** The codes only HTTP has; the status table (error-status.ts) maps them with the domain's. */
export type HttpErrorCode = 'method_not_allowed' | 'not_acceptable' | 'https_required' | 'rate_limit_exceeded' | 'request_timeout' | 'headers_too_large';

export abstract class HttpError extends ExpectedError {
  abstract readonly code: HttpErrorCode;
  /** headers the refusal carries besides the envelope's */
  readonly headers: Readonly<Record<string, string>>;
  constructor(message: string, headers: Readonly<Record<string, string>> = {}) {
    super(message);
    this.headers = headers;
  }
  /** As DomainError's: a GraphQL result (the internal endpoint's) names the code. */
  get extensions(): { code: HttpErrorCode } {
    return { code: this.code };
  }
}

/** 405 with the path's methods in `Allow`. */
export class MethodNotAllowedError extends HttpError {
  readonly code = 'method_not_allowed';
  constructor(allow: string, message = `Method not allowed. Allowed: ${allow}.`) {
    super(message, { Allow: allow });
  }
}

/** An Accept header that allows none of the representations an endpoint that answers only files has (406; D45). */
export class NotAcceptableError extends HttpError {
  readonly code = 'not_acceptable';
}

/** Plain HTTP from a client that must use HTTPS (D20). */
export class HttpsRequiredError extends HttpError {
  readonly code = 'https_required';
}

/**
 * Too many requests (429): a quota or rate limit exhausted, with its X-RateLimit-* headers, or too
 * many sign-in links; `Retry-After` says when the next may come.
 */
export class RateLimitedError extends HttpError {
  readonly code = 'rate_limit_exceeded';
}
