// Builds the whole service from its configuration and an open database; src/main.ts listens.
import type { Kysely } from 'kysely';
import { pino, type Logger } from 'pino';
import { join } from 'node:path';
import { publicUrlOf, type Config } from './config.js';
import { dashboardEndpoints } from './dashboard/app.js';
import { localChangeFeed, type ChangeFeed } from './db/change-feed.js';
import type { Database } from './db/database.js';
import { graphqlRefusal, internalEndpoints } from './internal/app.js';
import { Readiness } from './internal/readiness.js';
import { mcpEndpoint } from './mcp/endpoint.js';
import { ServiceMetrics, type PoolUse } from './metrics.js';
import { DeliveryWorker } from './jobs/webhook-deliveries.js';
import { AlertMailWorker } from './jobs/alert-mail.js';
import { createEdge, internalSteps, publicSteps } from './edge.js';
import { docsEndpoints, DOCS_OPERATIONS, DOCS_PATH } from './rest/docs-pages.js';
import { API_GUIDE, API_TITLE, openApiDocument } from './rest/openapi/document.js';
import { restApi } from './rest/pipeline.js';
import { routes } from './rest/routes.js';
import { KeyAuthenticator } from './rest/auth.js';
import { parseTrustedProxies } from './rest/client-address.js';
import { RequestLimits } from './rest/limits.js';
import { UsageRecorder } from './rest/usage.js';
import { createExecutor } from './schema/executor.js';
import { schema } from './schema/index.js';
import { RateHistoryStore } from './db/rate-history-store.js';
import { loadWebhookKey } from './service-file.js';
import type { Services } from './services.js';
import { createAlertLinks } from './mail/alert-links.js';
import { createMailer, type Mailer } from './mail/mailer.js';
import { VERSION } from './version.js';
import { createSecretBox } from './webhooks/secret-box.js';
import { createWebhookSender } from './webhooks/send.js';
import { systemResolver, type Resolver, type TargetPolicy } from './webhooks/target.js';

/** How webhooks reach the network; tests point names at their own receiver and trust its certificate. */
export interface WebhookNetwork {
  resolve?: Resolver;
  /** extra trusted CAs for deliveries; Node's store (system + NODE_EXTRA_CA_CERTS) otherwise */
  ca?: string[];
  /** one attempt's bound; 10 s otherwise (D28 in docs/decisions.md) */
  timeoutMs?: number;
}

export interface AppDependencies {
  config: Config;
  db: Kysely<Database>;
  /** how caches hear of changes made by other processes; this process alone when left out */
  changes?: ChangeFeed;
  operatorToken: string;
  clock?: () => Date;
  logger?: Logger;
  webhookNetwork?: WebhookNetwork;
  /** made before the database is opened, to hear its query times; a fresh one otherwise */
  metrics?: ServiceMetrics;
  /** the database pool's use, for /metrics (Postgres) */
  pool?: (() => PoolUse) | null;
  /** a copy of the embedded database while it runs, for `cli backup` (src/db/connect.ts) */
  snapshot?: (() => Promise<Blob>) | null;
}

const RESOLVE_TIMEOUT_MS = 5_000;
const DELIVERY_TIMEOUT_MS = 10_000; // D28
const RESPONSE_BYTES_READ = 64 * 1024;

/** What every request shares, with the key authenticator whose cache key changes must clear. */
export function createServices(
  db: Kysely<Database>,
  changes: ChangeFeed,
  config: Config,
  options: { clock?: () => Date; webhookNetwork?: WebhookNetwork; metrics?: ServiceMetrics; logger?: Logger; mailer?: Mailer } = {},
) {
  const clock = options.clock ?? (() => new Date());
  const keys = new KeyAuthenticator(db, clock);
  const rateHistory = new RateHistoryStore(db);
  changes.subscribe((channel) => {
    if (channel === 'keys_changed') keys.clear();
    else if (channel === 'rates_changed') rateHistory.invalidate();
  });
  const policy: TargetPolicy = {
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    resolve: options.webhookNetwork?.resolve ?? systemResolver,
    resolveTimeoutMs: RESOLVE_TIMEOUT_MS,
  };
  const webhookKey = loadWebhookKey(config);
  const publicUrl = publicUrlOf(config);
  const services: Services = {
    db,
    rateHistory,
    clock,
    version: VERSION,
    changes,
    rbaSources: { rss: config.RBA_RSS_URL, csv: config.RBA_CSV_URL, history: config.RBA_HISTORY_URLS },
    webhooks: {
      box: createSecretBox(webhookKey),
      policy,
      send: createWebhookSender({
        policy,
        timeoutMs: options.webhookNetwork?.timeoutMs ?? DELIVERY_TIMEOUT_MS,
        maxResponseBytes: RESPONSE_BYTES_READ,
        ...(options.webhookNetwork?.ca ? { ca: options.webhookNetwork.ca } : {}),
      }),
    },
    metrics: options.metrics ?? new ServiceMetrics(),
    mailer:
      options.mailer ??
      createMailer({
        smtpUrl: config.SMTP_URL,
        from: config.MAIL_FROM,
        outboxDir: join(config.DATA_DIR, 'outbox'),
        logger: options.logger ?? pino({ level: config.LOG_LEVEL }),
      }),
    publicUrl,
    alertLinks: createAlertLinks(webhookKey, publicUrl),
  };
  return { services, keys };
}

export function buildApp(deps: AppDependencies) {
  const logger = deps.logger ?? pino({ level: deps.config.LOG_LEVEL });
  const { services, keys } = createServices(deps.db, deps.changes ?? localChangeFeed(), deps.config, {
    ...(deps.clock ? { clock: deps.clock } : {}),
    ...(deps.webhookNetwork ? { webhookNetwork: deps.webhookNetwork } : {}),
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
    logger,
  });
  services.metrics.observeStore(deps.db, services.clock, deps.pool ?? null);
  const usage = new UsageRecorder(deps.db, services.clock, (err) => logger.error({ err }, 'usage flush failed'));
  const limits = new RequestLimits(deps.db, services.clock, { commitApart: Boolean(deps.config.DATABASE_URL), logger });
  const documentationUrl = deps.config.DOCUMENTATION_URL ?? new URL(DOCS_PATH, services.publicUrl).href;
  const executor = createExecutor(schema, services);
  const api = restApi(routes, {
    executor,
    services,
    keys,
    documentationUrl,
    limits,
    sharedAnswers: deps.config.SHARED_ANSWERS === 'on',
    logger,
  });
  const docs = docsEndpoints(
    openApiDocument(routes, { serverUrl: services.publicUrl, version: VERSION, guide: API_GUIDE, extraPaths: DOCS_OPERATIONS }),
    API_TITLE,
  );
  const planChange = { url: deps.config.PLAN_CHANGE_URL ?? null, email: deps.config.SUPPORT_EMAIL ?? null };
  const dashboard = dashboardEndpoints({ executor, services, logger, planChange });
  const readiness = new Readiness();
  const stopping = () => !readiness.ready;
  // The public listener: every surface's endpoints behind one edge (src/edge.ts).
  const web = createEdge(
    publicSteps({
      endpoints: [...api.endpoints, ...docs, ...dashboard.endpoints, mcpEndpoint(api.twins)],
      fallbacks: [dashboard.fallback],
      logger,
      trustedProxies: parseTrustedProxies(deps.config.TRUST_PROXY),
      usage,
      metrics: services.metrics,
    }),
    { logger, stopping },
  );
  const internal = createEdge(
    internalSteps({
      endpoints: internalEndpoints({ schema, services, operatorToken: deps.operatorToken, logger, readiness, snapshot: deps.snapshot ?? null }),
      render: graphqlRefusal,
      logger,
    }),
    { logger, stopping },
  );
  const deliveries = new DeliveryWorker(services, logger, { leaseMs: deps.config.WEBHOOK_LEASE_SECONDS * 1000 });
  const alertMail = new AlertMailWorker(services, logger.child({ job: 'alert-mail' }));
  return {
    services,
    /** the public listener's handler: node:http's request listener, and `fetch` for tests; every surface */
    web,
    /** the internal port's handler, likewise */
    internal,
    /** runs operations in this process (src/schema/executor.ts) */
    executor,
    /** the readiness check (GET /ready on the internal port); `stop()` begins a stop */
    readiness,
    logger,
    usage,
    /** sends webhook deliveries: `start()` in the service, `runDue()` from tests */
    deliveries,
    /** sends rate alerts' e-mails from their outbox: `start()` in the service, `runDue()` from tests */
    alertMail,
    /** Finishes attempts in flight and writes what is held in memory (usage counts) back before the database closes. */
    async close() {
      await Promise.all([deliveries.stop(), alertMail.stop()]);
      await Promise.all([usage.close(), services.rateHistory.settled(), limits.monthly.unanswered.close()]);
    },
  };
}

export type App = ReturnType<typeof buildApp>;
