// Everything the load generator aims at: the real service (buildApp(...).rest on the service's own
// listener, src/http/server.ts) over a
// fresh, seeded database, and the bare baseline server with a body the size of /latest's.
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { pino } from 'pino';
import { buildApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { listenerLimitsOf } from '../src/http/limits.js';
import { createListener, listen } from '../src/http/server.js';
import { JSON_CONTENT_TYPE, createBareServer } from './bare.js';
import { FIRST_DATE, LAST_DATE, NOW } from './fixtures.js';
import { seed } from './seed.js';
import { openBenchStorage } from './storage.js';

/** What the load generator needs to know; also the JSON line bench/serve.ts prints. */
export interface ServersInfo {
  serviceUrl: string;
  bareUrl: string;
  key: string;
  storage: string;
  /** business days stored */
  days: number;
  /** the fixture's 365 calendar days, first and last */
  firstDate: string;
  lastDate: string;
  latestBytes: number;
  pid: number;
}

export interface RunningServers {
  info: ServersInfo;
  close(): Promise<void>;
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

export async function startServers(): Promise<RunningServers> {
  const storage = await openBenchStorage();
  const servers: Server[] = [];
  let app: ReturnType<typeof buildApp> | undefined;
  const closeAll = async () => {
    try {
      await Promise.all(servers.map(close));
      await app?.close(); // usage counts and unused quota units, before the database goes
    } finally {
      await storage.destroy();
    }
  };
  try {
    const operatorToken = randomBytes(24).toString('hex');
    const config = parseConfig({ LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn', WEBHOOK_KEY: randomBytes(32).toString('base64url') });
    app = buildApp({ config, db: storage.db, operatorToken, clock: () => NOW, logger: pino({ level: config.LOG_LEVEL }) });
    const seeded = await seed(app, operatorToken);

    // The bare body must be exactly as long as a real /latest answer.
    const latest = await app.rest.fetch('http://rates.bench/latest', { headers: { Authorization: `Bearer ${seeded.key}` } });
    const latestBody = await latest.text();
    if (latest.status !== 200) throw new Error(`/latest answered ${latest.status} while starting: ${latestBody}`);
    if (latest.headers.get('content-type') !== JSON_CONTENT_TYPE) throw new Error(`/latest has content type ${latest.headers.get('content-type')}`);
    const latestBytes = Buffer.byteLength(latestBody);

    const service = createListener(app.rest.node, { limits: listenerLimitsOf(config), logger: app.logger });
    const bare = createBareServer(latestBytes);
    servers.push(service, bare);
    const [serviceUrl, bareUrl] = await Promise.all([listen(service, 0, '127.0.0.1'), listen(bare, 0, '127.0.0.1')]);
    return {
      info: { serviceUrl, bareUrl, storage: storage.label, key: seeded.key, days: seeded.days, firstDate: FIRST_DATE, lastDate: LAST_DATE, latestBytes, pid: process.pid },
      close: closeAll,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
