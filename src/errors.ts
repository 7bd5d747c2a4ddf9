// Expected failures of the domain: plain errors, each with a stable `code` from one closed list.
// Nothing here speaks HTTP or GraphQL: the REST facade maps every code to a status in one table
// (src/http/error-status.ts), the internal GraphQL endpoint shows the code as `extensions.code`,
// and the CLI and the jobs catch them like any other error.

/** Every code a domain error can carry. A new one does not compile until the facade's table maps it. */
export type ErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'invalid_api_key'
  | 'account_suspended'
  | 'plan_restricted'
  | 'key_restricted'
  | 'forbidden'
  | 'key_limit_reached'
  | 'webhooks_not_available'
  | 'subscription_limit_reached'
  | 'alerts_not_available'
  | 'alert_limit_reached'
  | 'not_found'
  | 'conflict'
  | 'query_timeout'
  | 'service_unavailable'
  | 'invalid_sign_in_link'
  | 'sign_in_required'
  | 'rba_source_failed';

/**
 * An error that is answered rather than debugged: it takes no stack trace. Capturing one, and with
 * the service's source maps formatting it when graphql-js reads it to wrap the error, would make a
 * refused request cost several times an answered one; a `cause` keeps its own.
 */
export abstract class ExpectedError extends Error {
  constructor(message: string, options?: { cause: unknown }) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(message, options);
    } finally {
      Error.stackTraceLimit = limit;
    }
    this.name = new.target.name;
  }
}

export abstract class DomainError extends ExpectedError {
  abstract readonly code: ErrorCode;
  /**
   * graphql-js copies an original error's `extensions` onto the GraphQL error that wraps it, so a
   * result (the internal endpoint's, the CLI's) names the code without knowing this class.
   */
  get extensions(): { code: ErrorCode } {
    return { code: this.code };
  }
}

export class BadRequestError extends DomainError {
  readonly code = 'bad_request';
}
/** No credentials where some are needed (the facade words how to send them). */
export class UnauthorizedError extends DomainError {
  readonly code = 'unauthorized';
}
export class InvalidApiKeyError extends DomainError {
  readonly code = 'invalid_api_key';
}
export class AccountSuspendedError extends DomainError {
  readonly code = 'account_suspended';
}
export class NotFoundError extends DomainError {
  readonly code = 'not_found';
}
export class ServiceUnavailableError extends DomainError {
  readonly code = 'service_unavailable';
}
/** The database did not answer within its bounds (stopped, frozen, unreachable): a 503, never a hang. */
export class StoreUnavailableError extends ServiceUnavailableError {
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
  }
}
/**
 * A store that could not be opened (a Postgres server that cannot be used, an embedded database
 * open in another process): its message is the one line a start or a command prints.
 */
export class StoreOpenError extends Error {
  readonly code = 'store_unopened';
}
/** An operator action that conflicts with stored state (an e-mail already registered, …). */
export class ConflictError extends DomainError {
  readonly code = 'conflict';
}
/** An operation only the operator may run. */
export class ForbiddenError extends DomainError {
  readonly code = 'forbidden';
}
/** A key beyond the plan's key count (Professional and above). */
export class KeyLimitReachedError extends DomainError {
  readonly code = 'key_limit_reached';
}
/** An internal (analytics) query cancelled at its statement timeout. */
export class QueryTimeoutError extends DomainError {
  readonly code = 'query_timeout';
}
/** A request outside the plan's history or time-series window (D13 in docs/decisions.md). */
export class PlanRestrictedError extends DomainError {
  readonly code = 'plan_restricted';
}
/** A request outside its key's restrictions (the addresses or endpoints the account allowed it). */
export class KeyRestrictedError extends DomainError {
  readonly code = 'key_restricted';
}
/** Webhook subscriptions on a plan without them (Free, Starter). */
export class WebhooksNotAvailableError extends DomainError {
  readonly code = 'webhooks_not_available';
}
/** A subscription beyond the plan's count. */
export class SubscriptionLimitReachedError extends DomainError {
  readonly code = 'subscription_limit_reached';
}
/** Rate alerts on a plan without them (Free). */
export class AlertsNotAvailableError extends DomainError {
  readonly code = 'alerts_not_available';
}
/** An alert beyond the plan's count. */
export class AlertLimitReachedError extends DomainError {
  readonly code = 'alert_limit_reached';
}
/** A sign-in link that is malformed, unknown, expired or already used: a new one must be asked for. */
export class InvalidSignInLinkError extends DomainError {
  readonly code = 'invalid_sign_in_link';
}
/** A dashboard operation without a signed-in session (none, expired, or signed out). */
export class SignInRequiredError extends DomainError {
  readonly code = 'sign_in_required';
}
