// Expected failures. Each has a stable `code`; the REST facade maps codes to HTTP statuses in one
// table (src/rest/error-status.ts) and the internal GraphQL endpoint shows them as
// `extensions.code`. Being GraphQLErrors, they pass through GraphQL execution unmasked.
import { GraphQLError } from 'graphql';

export abstract class DomainError extends GraphQLError {
  abstract readonly code: string;
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
  override toJSON() {
    return { ...super.toJSON(), extensions: { code: this.code } };
  }
}

export class BadRequestError extends DomainError {
  readonly code = 'bad_request';
}
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
export class MethodNotAllowedError extends DomainError {
  readonly code = 'method_not_allowed';
  constructor(readonly allow: readonly string[]) {
    super(`Method not allowed. Allowed: ${allow.join(', ')}.`);
  }
}
export class ServiceUnavailableError extends DomainError {
  readonly code = 'service_unavailable';
}
/** The database did not answer within its bounds (stopped, frozen, unreachable): a 503, never a hang. */
export class StoreUnavailableError extends ServiceUnavailableError {
  constructor(message: string, options: { cause: unknown }) {
    super(message);
    this.cause = options.cause;
  }
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
/** A quota or rate limit exhausted (429). */
export class RateLimitExceededError extends DomainError {
  readonly code = 'rate_limit_exceeded';
  constructor(message: string, readonly headers: Record<string, string>) {
    super(message);
  }
}
/** An internal (analytics) query cancelled at its statement timeout. */
export class QueryTimeoutError extends DomainError {
  readonly code = 'query_timeout';
}
/** A request outside the plan's history or time-series window (D13 in docs/decisions.md). */
export class PlanRestrictedError extends DomainError {
  readonly code = 'plan_restricted';
}
/** Plain HTTP from a client that must use HTTPS (D20). */
export class HttpsRequiredError extends DomainError {
  readonly code = 'https_required';
}
/** Webhook subscriptions on a plan without them (Free, Starter). */
export class WebhooksNotAvailableError extends DomainError {
  readonly code = 'webhooks_not_available';
}
/** A subscription beyond the plan's count. */
export class SubscriptionLimitReachedError extends DomainError {
  readonly code = 'subscription_limit_reached';
}
/** A sign-in link that is malformed, unknown, expired or already used: a new one must be asked for. */
export class InvalidSignInLinkError extends DomainError {
  readonly code = 'invalid_sign_in_link';
}
/** A dashboard operation without a signed-in session (none, expired, or signed out). */
export class SignInRequiredError extends DomainError {
  readonly code = 'sign_in_required';
}
