// Each operation's context: the app's services, the rates it reads, the loaders that batch its reads
// of accounts, keys, usage, subscriptions and alerts (src/schema/loaders.ts), and who is asking. The
// viewer is always explicit, so no rule can mistake a missing one for the operator: the schema's
// auth scopes (src/schema/viewer-scopes.ts) decide from it what each kind of viewer may do.
import { RequestCache } from '@pothos/plugin-scope-auth';
import type { Account } from '../db/database.js';
import type { Plan } from '../domain/plans.js';
import type { Services } from '../services.js';
import { createLoaders, type Loaders } from './loaders.js';
import { createRateLoaders, type RateLoaders } from './rate-loaders.js';

/** The operator: the internal endpoint behind the operator token, and the operator CLI. */
export interface OperatorViewer {
  kind: 'operator';
}

/** A customer's server: the account behind a valid API key. */
export interface ApiKeyViewer {
  kind: 'apiKey';
  accountId: string;
  keyId: string;
  plan: Plan;
  /** day of month the account's quota resets */
  billingDay: number;
  /** the key's own share of the account's units each period; absent or null: no cap */
  monthlyCap?: number | null;
}

/** A signed-in dashboard browser: its session and its account. */
export interface SessionViewer {
  kind: 'session';
  /** the hash of the session's token, which is what the store knows it by */
  tokenHash: string;
  account: Account;
}

/** A request that sent no credentials (keyless /convert, the dashboard's sign-in pages). */
export interface AnonymousViewer {
  kind: 'anonymous';
}

export type Viewer = OperatorViewer | ApiKeyViewer | SessionViewer | AnonymousViewer;

export const OPERATOR: OperatorViewer = { kind: 'operator' };
export const ANONYMOUS: AnonymousViewer = { kind: 'anonymous' };

export interface Context {
  services: Services;
  rates: RateLoaders;
  loaders: Loaders;
  viewer: Viewer;
}

export function createContext(services: Services, viewer: Viewer): Context {
  let rates: RateLoaders | undefined;
  let loaders: Loaders | undefined;
  return {
    services,
    // Requests answered without rates (or from the shared answers) never make rate loaders, and
    // those that read no account, key, subscription or alert never make the others.
    get rates() {
      return (rates ??= createRateLoaders(services.rateHistory));
    },
    get loaders() {
      return (loaders ??= createLoaders(services.db));
    },
    viewer,
  };
}

/**
 * Drops what the schema's plugins keep for `context` once its operation has ended. Pothos'
 * scope-auth keeps each request's scope cache in a process-wide WeakMap keyed by the context; the
 * entries outlived the young generation's collections (the cache refers back to its context; only
 * full collections cleared them), so on a busy listener every request's context was copied into
 * the old generation and left there as garbage: most of what was promoted across the varied
 * requests (README, Performance). Deleted when the operation ends, the request's objects die young.
 */
export function releaseContext(context: Context): void {
  RequestCache.clearForContext(context);
}
