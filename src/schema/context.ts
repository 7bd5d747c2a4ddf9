import type { Kysely } from 'kysely';
import { ForbiddenError } from '../errors.js';
import type { ChangeFeed } from '../db/change-feed.js';
import type { Database, Plan } from '../db/database.js';
import { createRateLoaders, type RateCache, type RateLoaders } from './rate-loaders.js';

/** Who is asking: the account behind a valid API key. */
export interface Viewer {
  accountId: string;
  keyId: string;
  plan: Plan;
  /** day of month the account's quota resets */
  billingDay: number;
}

/** What every request shares: built once at start-up. */
export interface Services {
  db: Kysely<Database>;
  rateCache: RateCache;
  clock: () => Date;
  version: string;
  /** announces a committed change to every process's caches: keys (revoke, suspend, plan) or rates */
  changes: ChangeFeed;
}

export interface Context {
  services: Services;
  rates: RateLoaders;
  viewer: Viewer | null;
  /** true only on the internal endpoint behind the operator token, and for the operator CLI */
  operator: boolean;
}

export function createContext(services: Services, who: { viewer?: Viewer | null; operator?: boolean }): Context {
  let rates: RateLoaders | undefined;
  return {
    services,
    // Most requests are answered from the process cache: the loaders are made when first needed.
    get rates() {
      return (rates ??= createRateLoaders(services.rateCache));
    },
    viewer: who.viewer ?? null,
    operator: who.operator ?? false,
  };
}

export function requireOperator(ctx: Context): void {
  if (!ctx.operator) throw new ForbiddenError('This operation is for the operator only');
}
