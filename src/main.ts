// `npm start`: opens the database, migrates, and listens on the public and internal ports.
import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import { buildApp } from './app.js';
import { ConfigError, parseConfig } from './config.js';
import { startChangeFeed } from './db/change-feed.js';
import { openDatabase, targetFromConfig } from './db/connect.js';
import { openLeaderLock } from './db/leader-lock.js';
import { migrateToLatest } from './db/migrate.js';
import { listenerLimitsOf } from './http/limits.js';
import { refusingInvalidTargets } from './http/request-target.js';
import { createListener, listen } from './http/server.js';
import { ServiceMetrics } from './metrics.js';
import { RBA_LEADER_LOCK, startRbaScheduler } from './jobs/rba-scheduler.js';
import { findRunningService, keepDataDirPrivate, loadOperatorToken, removeServiceFile, writeServiceFile } from './service-file.js';

async function main(): Promise<void> {
  const config = parseConfig(process.env);
  keepDataDirPrivate(config.DATA_DIR);
  const running = findRunningService(config.DATA_DIR);
  if (running && !config.DATABASE_URL) {
    // PGlite is one process's database: a second service on the same directory would corrupt it.
    throw new ConfigError(`A service (pid ${running.pid}) already uses DATA_DIR ${config.DATA_DIR}; stop it first or use another DATA_DIR`);
  }
  const metrics = new ServiceMetrics();
  const { db, target, pool } = await openDatabase(targetFromConfig(config), { log: metrics.databaseLog });
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
    refusingInvalidTargets((req, res) => void app.internal(req, res)),
    listenerOptions,
  );
  const publicUrl = await listen(publicServer, config.PORT, config.HOST);
  const internalUrl = await listen(internalServer, config.INTERNAL_PORT, config.INTERNAL_HOST);
  writeServiceFile(config.DATA_DIR, { pid: process.pid, publicUrl, internalUrl: `${internalUrl}/graphql` });
  if (config.WEBHOOK_ALLOW_PRIVATE_TARGETS) {
    app.logger.warn('WEBHOOK_ALLOW_PRIVATE_TARGETS is on: webhooks may reach private and loopback addresses (for tests and private deployments only)');
  }
  app.deliveries.start();
  // Every process may follow the RBA; the advisory lock lets exactly one of them poll at a time.
  const scheduler =
    config.SCHEDULER === 'on'
      ? startRbaScheduler({
          services: app.services,
          leader: openLeaderLock(target, RBA_LEADER_LOCK, { onError: (err) => app.logger.warn({ err }, 'rba leader lock') }),
          logger: app.logger.child({ job: 'rba-scheduler' }),
        })
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

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(error instanceof ConfigError ? 2 : 1);
});
