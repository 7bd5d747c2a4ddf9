// What every request and every job shares, built once at start-up by createServices (src/app.ts).
// It sits beside the app, below the schema and the facade, so jobs and the CLI can take it without
// importing either.
import type { Kysely } from 'kysely';
import type { ChangeFeed } from './db/change-feed.js';
import type { Database } from './db/database.js';
import type { RateHistoryStore } from './db/rate-history-store.js';
import type { AlertLinks } from './mail/alert-links.js';
import type { Mailer } from './mail/mailer.js';
import type { ServiceMetrics } from './metrics.js';
import type { SecretBox } from './webhooks/secret-box.js';
import type { AttemptResult, WebhookRequest } from './webhooks/send.js';
import type { TargetPolicy } from './webhooks/target.js';

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
  /** the signed links of alert e-mails */
  alertLinks: AlertLinks;
}

export interface WebhookServices {
  /** seals and opens signing secrets */
  box: SecretBox;
  /** which targets may be subscribed and contacted (D26, D30, D34 in docs/decisions.md) */
  policy: TargetPolicy;
  /** one signed POST to a checked address */
  send(request: WebhookRequest): Promise<AttemptResult>;
}
