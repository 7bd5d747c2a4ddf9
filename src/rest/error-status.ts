// The one table from an error's code to its HTTP status (docs/api.md §7, D12 in docs/decisions.md),
// and the envelope.
import type { ErrorCode } from '../errors.js';
import type { HttpErrorCode } from './http-errors.js';
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
  https_required: 403,
  forbidden: 403,
  key_limit_reached: 403,
  webhooks_not_available: 403,
  subscription_limit_reached: 403,
  not_found: 404,
  method_not_allowed: 405,
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

/** The envelope of docs/api.md §7 for an error code. */
export function errorEnvelope(code: RefusalCode, info: string): { status: number; body: string } {
  const status = ERROR_STATUS[code];
  return { status, body: stringify({ success: false, error: { code: status, type: code, info } }) };
}
