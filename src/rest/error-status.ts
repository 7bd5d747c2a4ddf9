// The one table from an error's code to its HTTP status (SPEC 7, D12).
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
  rate_limit_exceeded: 429,
  service_unavailable: 503,
};

export function statusOf(code: string): number {
  return ERROR_STATUS[code] ?? 503;
}
