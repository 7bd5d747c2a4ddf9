import type { Kysely } from 'kysely';
import { ForbiddenError } from '../errors.js';
import type { ChangeFeed } from '../db/change-feed.js';
import type { Account, Database, Plan } from '../db/database.js';
import type { Mailer } from '../mail/mailer.js';
import type { ServiceMetrics } from '../metrics.js';
import type { SecretBox } from '../webhooks/secret-box.js';
import type { AttemptResult, WebhookRequest } from '../webhooks/send.js';
import type { TargetPolicy } from '../webhooks/target.js';
import { createRateLoaders, type RateHistoryStore, type RateLoaders } from './rate-loaders.js';

/** Who is asking: the account behind a valid API key. */
export interface Viewer {
  accountId: string;
  keyId: string;
  plan: Plan;
  /** day of month the account's quota resets */
  billingDay: number;
}

/** Who is asking in the dashboard: a signed-in browser's session and its account. */
export interface SessionViewer {
  /** the hash of the session's token, which is what the store knows it by */
  tokenHash: string;
  account: Account;
}

/** What every request shares: built once at start-up. */
export interface Services {
  db: Kysely<Database>;
  /** every stored rate, in memory */
  rateHistory: RateHistoryStore;
  clock: () => Date;
  version: string;
  /** announces a committed change to every process's caches: keys (revoke, suspend, plan) or rates */
  changes: ChangeFeed;
  /** where rates are fetched from by the scheduler and `sync`: URLs or file paths */
  rbaSources: { rss: string; csv: string; history: readonly string[] };
  webhooks: WebhookServices;
  /** what GET /metrics on the internal port reports */
  metrics: ServiceMetrics;
  mailer: Mailer;
  /** the service's public origin, written into e-mailed links */
  publicUrl: string;
}

export interface WebhookServices {
  /** seals and opens signing secrets */
  box: SecretBox;
  /** which targets may be subscribed and contacted (D26, D30, D34 in docs/decisions.md) */
  policy: TargetPolicy;
  /** one signed POST to a checked address */
  send(request: WebhookRequest): Promise<AttemptResult>;
}

export interface Context {
  services: Services;
  rates: RateLoaders;
  viewer: Viewer | null;
  /** the dashboard's signed-in session, when the request came from it */
  session: SessionViewer | null;
  /** true only on the internal endpoint behind the operator token, and for the operator CLI */
  operator: boolean;
}

export function createContext(services: Services, who: { viewer?: Viewer | null; session?: SessionViewer | null; operator?: boolean }): Context {
  let rates: RateLoaders | undefined;
  return {
    services,
    // Requests answered without rates (or from the shared answers) never make loaders.
    get rates() {
      return (rates ??= createRateLoaders(services.rateHistory));
    },
    viewer: who.viewer ?? null,
    session: who.session ?? null,
    operator: who.operator ?? false,
  };
}

export function requireOperator(ctx: Context): void {
  if (!ctx.operator) throw new ForbiddenError('This operation is for the operator only');
}
