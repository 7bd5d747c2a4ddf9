// The one table from an error's code to its HTTP status (docs/api.md §7, D12 in docs/decisions.md),
// and the envelope.
import { stringify } from '../json.js';

export const ERROR_STATUS: Record<string, number> = {
  bad_request: 400,
  unauthorized: 401,
  invalid_api_key: 401,
  account_suspended: 401,
  plan_restricted: 403,
  https_required: 403,
  forbidden: 403,
  key_limit_reached: 403,
  webhooks_not_available: 403,
  subscription_limit_reached: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  /** the listener's own limits: a request not received in time, headers over 16 KiB */
  request_timeout: 408,
  headers_too_large: 431,
  rate_limit_exceeded: 429,
  service_unavailable: 503,
};

export function statusOf(code: string): number {
  return ERROR_STATUS[code] ?? 503;
}

/** The envelope of docs/api.md §7 for an error code. */
export function errorEnvelope(code: string, info: string): { status: number; body: string } {
  const status = statusOf(code);
  return { status, body: stringify({ success: false, error: { code: status, type: code, info } }) };
}
