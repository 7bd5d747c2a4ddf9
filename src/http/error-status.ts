// The one table from an error's code to its HTTP status (docs/api.md §7, D12 in docs/decisions.md),
// what a thrown error refuses, and the envelope. Every surface of the public listener maps its
// errors here; the dashboard renders the same refusal as a page (src/dashboard/app.ts).
import { GraphQLError } from 'graphql';
import { DomainError, type ErrorCode } from '../errors.js';
import { HttpError, type HttpErrorCode } from './http-errors.js';
import { stringify } from '../json.js';

export type RefusalCode = ErrorCode | HttpErrorCode;

/** Every code, domain and HTTP alike: a code left out does not compile, and nothing falls back. */
export const ERROR_STATUS: Readonly<Record<RefusalCode, number>> = {
  bad_request: 400,
  invalid_sign_in_link: 400,
  unauthorized: 401,
  invalid_api_key: 401,
  account_suspended: 401,
  sign_in_required: 401,
  plan_restricted: 403,
  key_restricted: 403,
  https_required: 403,
  forbidden: 403,
  key_limit_reached: 403,
  webhooks_not_available: 403,
  subscription_limit_reached: 403,
  alerts_not_available: 403,
  alert_limit_reached: 403,
  not_found: 404,
  method_not_allowed: 405,
  /** an endpoint that answers only files, asked for none of them (D45) */
  not_acceptable: 406,
  /** the listener's own limits: a request not received in time, headers over 16 KiB */
  request_timeout: 408,
  conflict: 409,
  headers_too_large: 431,
  rate_limit_exceeded: 429,
  service_unavailable: 503,
  /** an analytics query past its bound, a rate source that failed: the service could not answer now */
  query_timeout: 503,
  rba_source_failed: 503,
};

/** An expected failure as every surface answers it: its code, status, words and own headers. */
export interface Refused {
  code: RefusalCode;
  status: number;
  info: string;
  /** headers the refusal carries (Allow, Retry-After, X-RateLimit-*, WWW-Authenticate) */
  headers: Record<string, string>;
}

/**
 * What a thrown error refuses; null for a fault no step foresaw (the caller logs it and answers
 * 503). GraphQL execution wraps what a resolver throws: the domain's own error is inside. A 401
 * always names the scheme to authenticate with (RFC 9110 section 11.6.1).
 */
export function refusalOf(error: unknown): Refused | null {
  const original = error instanceof GraphQLError && error.originalError ? error.originalError : error;
  if (original instanceof HttpError || original instanceof DomainError) {
    const status = ERROR_STATUS[original.code];
    const headers: Record<string, string> = original instanceof HttpError ? { ...original.headers } : {};
    if (status === 401) headers['WWW-Authenticate'] = 'Bearer';
    return { code: original.code, status, info: original.message, headers };
  }
  // A GraphQL error of its own (no resolver behind it) is about the request: a variable the schema refused.
  if (error instanceof GraphQLError && error.path === undefined) return { code: 'bad_request', status: 400, info: error.message, headers: {} };
  return null;
}

/** The envelope of docs/api.md §7 for an error code. */
export function errorEnvelope(code: RefusalCode, info: string): { status: number; body: string } {
  const status = ERROR_STATUS[code];
  return { status, body: stringify({ success: false, error: { code: status, type: code, info } }) };
}
