// Builds the whole service from its configuration and an open database; src/main.ts listens.
import type { Kysely } from 'kysely';
import { pino, type Logger } from 'pino';
import type { Config } from './config.js';
import { localChangeFeed, type ChangeFeed } from './db/change-feed.js';
import type { Database } from './db/database.js';
import { createInternalApp } from './internal/app.js';
import { createRestApp } from './rest/app.js';
import { KeyAuthenticator } from './rest/auth.js';
import { parseTrustedProxies } from './rest/client-address.js';
import { RequestLimits } from './rest/limits.js';
import { UsageRecorder } from './rest/usage.js';
import type { Services } from './schema/context.js';
import { schema } from './schema/index.js';
import { RateCache } from './schema/rate-loaders.js';
import { VERSION } from './version.js';

export interface AppDependencies {
  config: Config;
  db: Kysely<Database>;
  /** how caches hear of changes made by other processes; this process alone when left out */
  changes?: ChangeFeed;
  operatorToken: string;
  clock?: () => Date;
  logger?: Logger;
}

/** What every request shares, with the key authenticator whose cache key changes must clear. */
export function createServices(db: Kysely<Database>, changes: ChangeFeed, clock: () => Date = () => new Date()) {
  const keys = new KeyAuthenticator(db);
  const rateCache = new RateCache(db);
  changes.subscribe((channel) => (channel === 'keys_changed' ? keys.clear() : rateCache.invalidate()));
  const services: Services = { db, rateCache, clock, version: VERSION, changes };
  return { services, keys };
}

export function buildApp(deps: AppDependencies) {
  const logger = deps.logger ?? pino({ level: deps.config.LOG_LEVEL });
  const { services, keys } = createServices(deps.db, deps.changes ?? localChangeFeed(), deps.clock);
  const usage = new UsageRecorder(deps.db, services.clock, (err) => logger.error({ err }, 'usage flush failed'));
  const limits = new RequestLimits(deps.db, services.clock, (err) => logger.error({ err }, 'returning quota units failed'));
  const rest = createRestApp({
    schema,
    services,
    keys,
    documentationUrl: deps.config.DOCUMENTATION_URL,
    logger,
    limits,
    usage,
    trustedProxies: parseTrustedProxies(deps.config.TRUST_PROXY),
  });
  const internal = createInternalApp({ schema, services, operatorToken: deps.operatorToken });
  return {
    services,
    rest,
    internal,
    logger,
    usage,
    quota: limits.monthly,
    /** Writes what is held in memory (usage counts, unused quota units) back before the database closes. */
    async close() {
      await Promise.all([usage.close(), limits.monthly.close()]);
    },
  };
}

export type App = ReturnType<typeof buildApp>;
