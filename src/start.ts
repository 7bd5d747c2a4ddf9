// Everything `npm start` does once the database is opening (src/main.ts): migrate, build the app,
// read the rates into memory, listen on the public and internal ports, and stop cleanly on a signal.
import { readFileSync } from 'node:fs';
import type { LogEvent } from 'kysely';
import { pino } from 'pino';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { startChangeFeed } from './db/change-feed.js';
import type { OpenDatabase } from './db/connect.js';
import { openLeaderLock } from './db/leader-lock.js';
import { migrateToLatest } from './db/migrate.js';
import { listenerLimitsOf } from './http/limits.js';
import { internalListener } from './edge.js';
import { createListener, listen } from './http/server.js';
import { ServiceMetrics } from './metrics.js';
import { PUBLICATION_SCHEDULE, RBA_LEADER_LOCK, startRbaScheduler } from './jobs/rba-scheduler.js';
import { loadOperatorToken, removeServiceFile, writeServiceFile } from './service-file.js';

export interface Opening {
  /** the database, opening meanwhile */
  database: Promise<OpenDatabase>;
  /** where the database's statements report, once the metrics exist */
  reportQueriesTo(log: (event: LogEvent) => void): void;
}

export async function start(config: Config, opening: Opening): Promise<void> {
  const metrics = new ServiceMetrics();
  opening.reportQueriesTo(metrics.databaseLog);
  const { db, target, pool } = await opening.database;
  await migrateToLatest(db);
  const logger = pino({ level: config.LOG_LEVEL });
  const changes = await startChangeFeed(target, (err) => logger.error({ err }, 'change feed'));
  const app = buildApp({ config, db, changes, logger, operatorToken: loadOperatorToken(config), metrics, pool });
  // Every rate is served from memory: the whole stored history is read before the first request.
  const history = await app.services.rateHistory.current();
  logger.info({ days: history.days.length, values: history.values, newestDate: history.newestDate }, 'rates loaded into memory');
  const listenerOptions = { limits: listenerLimitsOf(config), logger: app.logger };
  const publicServer = createListener(app.web.node, {
    ...listenerOptions,
    ...(config.TLS_CERT_FILE ? { tls: { cert: readFileSync(config.TLS_CERT_FILE), key: readFileSync(config.TLS_KEY_FILE!) } } : {}),
  });
  const internalServer = createListener(
    internalListener((req, res) => void app.internal(req, res), app.logger),
    listenerOptions,
  );
  const publicUrl = await listen(publicServer, config.PORT, config.HOST);
  const internalUrl = await listen(internalServer, config.INTERNAL_PORT, config.INTERNAL_HOST);
  writeServiceFile(config.DATA_DIR, { pid: process.pid, publicUrl, internalUrl: `${internalUrl}/graphql` });
  if (config.WEBHOOK_ALLOW_PRIVATE_TARGETS) {
    app.logger.warn('WEBHOOK_ALLOW_PRIVATE_TARGETS is on: webhooks may reach private and loopback addresses (for tests and private deployments only)');
  }
  app.deliveries.start();
  app.alertMail.start();
  // Every process may follow the RBA; the advisory lock lets exactly one of them poll at a time.
  // The leader also prunes old webhook deliveries; with no scheduler, every process may.
  const leader = config.SCHEDULER === 'on' ? openLeaderLock(target, RBA_LEADER_LOCK, { onError: (err) => app.logger.warn({ err }, 'rba leader lock') }) : null;
  if (leader) app.deliveries.pruneOnlyWhile(() => leader.isHeld());
  const scheduler = leader
    ? startRbaScheduler({ services: app.services, leader, logger: app.logger.child({ job: 'rba-scheduler' }), schedule: PUBLICATION_SCHEDULE })
    : null;
  app.logger.info({ publicUrl, internalUrl, storage: config.DATABASE_URL ? 'postgres' : `pglite:${config.DATA_DIR}` }, `listening on ${publicUrl}`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.logger.info({ signal }, 'stopping');
    removeServiceFile(config.DATA_DIR);
    publicServer.closeAllConnections();
    internalServer.closeAllConnections();
    await Promise.all([new Promise((r) => publicServer.close(r)), new Promise((r) => internalServer.close(r))]);
    await scheduler?.stop();
    await app.close();
    await changes.close();
    await db.destroy();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}
