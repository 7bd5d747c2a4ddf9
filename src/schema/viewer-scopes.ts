// Who may do what, decided in the core from the explicit viewer (src/schema/context.ts) with
// Pothos' scope-auth plugin: a field names the scopes it needs (`authScopes`), and the plugin checks
// them before its resolver runs, whichever endpoint or facade sent the operation. Plan windows,
// which depend on a field's arguments, are checked by the resolvers (src/schema/plan-rules.ts) after
// the arguments, as D11 (docs/decisions.md) orders them.
import { AuthScopeFailureType, type AuthFailure } from '@pothos/plugin-scope-auth';
import { ForbiddenError, InvalidApiKeyError, SignInRequiredError, UnauthorizedError, type DomainError } from '../errors.js';
import type { ApiKeyViewer, Context, SessionViewer, Viewer } from './context.js';

export interface ViewerScopes {
  /** the operator's own operations (accounts, keys, imports, analytics) */
  operator: boolean;
  /** an account's own resources reached with one of its API keys (webhook subscriptions) */
  apiKey: boolean;
  /** a signed-in dashboard session's account */
  session: boolean;
  /** rates of a given date or range (D12): every viewer but an anonymous one, within its plan's windows */
  datedRates: boolean;
}

/** D12: only a keyless request may not ask for dated rates; the operator, keys and sessions may (within their plans). */
export function mayReadDatedRates(viewer: Viewer): boolean {
  return viewer.kind !== 'anonymous';
}

export function datedRatesRefused(): UnauthorizedError {
  return new UnauthorizedError('Historical rates (a date or a time series) need an API key');
}

export function viewerScopes({ viewer }: Context): ViewerScopes {
  return {
    operator: viewer.kind === 'operator',
    apiKey: viewer.kind === 'apiKey',
    session: viewer.kind === 'session',
    datedRates: mayReadDatedRates(viewer),
  };
}

/** What a viewer without a scope is told, one error per scope. */
const REFUSALS: Record<keyof ViewerScopes, () => DomainError> = {
  operator: () => new ForbiddenError('This operation is for the operator only'),
  apiKey: () => new InvalidApiKeyError('This operation needs an API key'),
  session: () => new SignInRequiredError('Sign in to the dashboard first'),
  datedRates: datedRatesRefused,
};

function failedScope(failure: AuthFailure): keyof ViewerScopes | null {
  switch (failure.kind) {
    case AuthScopeFailureType.AuthScope:
      return failure.scope as keyof ViewerScopes;
    case AuthScopeFailureType.AnyAuthScopes:
    case AuthScopeFailureType.AllAuthScopes:
      for (const inner of failure.failures) {
        const scope = failedScope(inner);
        if (scope) return scope;
      }
      return null;
    default:
      return null;
  }
}

export function refusalFor(failure: AuthFailure): Error {
  const scope = failedScope(failure);
  return scope ? REFUSALS[scope]() : new ForbiddenError('This operation is not allowed to this caller');
}

/** The API key's holder of a field that needs `apiKey` (the scope has let only keys in). */
export function apiKeyViewerOf(ctx: Context): ApiKeyViewer {
  if (ctx.viewer.kind !== 'apiKey') throw REFUSALS.apiKey();
  return ctx.viewer;
}

/** The session of a field that needs `session` (the scope has let only sessions in). */
export function sessionViewerOf(ctx: Context): SessionViewer {
  if (ctx.viewer.kind !== 'session') throw REFUSALS.session();
  return ctx.viewer;
}
