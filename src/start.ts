// Everything `npm start` does once the database is opening (src/main.ts): migrate, build the app,
// read the rates into memory, listen on the public and internal ports, and stop cleanly on a signal
// (docs/operations.md, "Stopping and rolling restarts").
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LogEvent } from 'kysely';
import { pino } from 'pino';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { startChangeFeed } from './db/change-feed.js';
import type { OpenDatabase } from './db/connect.js';
import { openLeaderLock } from './db/leader-lock.js';
import { migrateStore } from './db/migrate.js';
import { listenerLimitsOf } from './http/limits.js';
import { closeListener, createListener, listen } from './http/server.js';
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
  const { db, target, pool, snapshot } = await opening.database;
  const logger = pino({ level: config.LOG_LEVEL });
  const migrated = await migrateStore({ db, target });
  if (migrated.length > 0) logger.info({ migrations: migrated }, `migrated the database: ${migrated.length} migrations applied`);
  const changes = await startChangeFeed(target, (err) => logger.error({ err }, 'change feed'));
  const app = buildApp({ config, db, changes, logger, operatorToken: loadOperatorToken(config), metrics, pool, snapshot });
  // Every rate is served from memory: the whole stored history is read before the first request.
  const history = await app.services.rateHistory.current();
  logger.info({ days: history.days.length, values: history.values, newestDate: history.newestDate }, 'rates loaded into memory');
  const listenerOptions = { limits: listenerLimitsOf(config), logger: app.logger };
  const { readiness } = app;
  const publicServer = createListener(app.web, {
    ...listenerOptions,
    ...(config.TLS_CERT_FILE ? { tls: { cert: readFileSync(config.TLS_CERT_FILE), key: readFileSync(config.TLS_KEY_FILE!) } } : {}),
  });
  const internalServer = createListener(app.internal, listenerOptions);
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

  // A stopping process lets the lock go at once; the others hear it and one of them takes it.
  changes.subscribe((channel) => channel === 'leader_released' && void scheduler?.checkLeader());

  const stop = async (signal: NodeJS.Signals) => {
    if (!readiness.ready) return;
    readiness.stop();
    const deadline = Date.now() + STOP_WITHIN_MS;
    setTimeout(() => {
      app.logger.error({ signal }, `not stopped within ${STOP_WITHIN_MS / 1000} s: exiting with work unfinished`);
      process.exit(1);
    }, STOP_WITHIN_MS).unref();
    app.logger.info({ signal }, 'stopping');
    // Leadership (polling, pruning) and webhook deliveries are handed over at once, not after the drain.
    const handover = Promise.all([
      scheduler
        ?.stop()
        .then(() => changes.publish('leader_released'))
        .catch((err: unknown) => app.logger.warn({ err }, 'handing over the leader lock')),
      app.deliveries.stop(),
    ]);
    // SIGTERM is a balancer's or systemd's stop: everything is still served for a moment while the
    // readiness check answers 503, so the balancer sends nothing new here by the time the listener
    // closes. SIGINT (Ctrl-C at a terminal) has no balancer to wait for.
    if (signal === 'SIGTERM') await sleep(config.SHUTDOWN_DELAY_MS);
    // Every request in flight is answered (and every unit it took counted) before the database closes.
    await Promise.all([closeListener(publicServer, deadline - CUT_OFF_MARGIN_MS), closeListener(internalServer, deadline - CUT_OFF_MARGIN_MS)]);
    await handover;
    await app.close();
    await changes.close();
    await db.destroy();
    // Last: while the embedded database is open, a CLI command must find the service and not open it.
    removeServiceFile(config.DATA_DIR, process.pid);
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

/** A stopped process is gone within this long, whatever is still running (a balancer's or systemd's expectation). */
const STOP_WITHIN_MS = 10_000;
/** what a stop keeps, after cutting off requests still unanswered, to write its counts and close the database */
const CUT_OFF_MARGIN_MS = 1_500;
