// Everything the load generator aims at: the real service (buildApp(...).web, the public port's handler, on the service's own
// listener, src/http/server.ts) over a
// fresh, seeded database, and the bare baseline server with a body the size of /latest's.
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { pino } from 'pino';
import { buildApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { listenerLimitsOf } from '../src/http/limits.js';
import { createListener, listen } from '../src/http/server.js';
import { RateHistoryStore } from '../src/db/rate-history-store.js';
import { JSON_CONTENT_TYPE, createBareServer } from './bare.js';
import { FIRST_DATE, HISTORY, LAST_DATE, NOW } from './fixtures.js';
import { seed } from './seed.js';
import { openBenchStorage } from './storage.js';

/** What the load generator needs to know; also the JSON line bench/serve.ts prints. */
export interface ServersInfo {
  serviceUrl: string;
  bareUrl: string;
  key: string;
  /** one key for each of as many accounts (bench/seed.ts) */
  accountKeys: string[];
  storage: string;
  /** where the rates came from (a generated F11.1 CSV, or the file given) */
  source: string;
  /** business days stored */
  days: number;
  /** values stored */
  values: number;
  /** how long reading the whole stored history into memory took, as at start-up */
  historyLoadMs: number;
  /** heap the loaded history holds (measured with a forced GC when --expose-gc is on; null otherwise) */
  historyHeapBytes: number | null;
  /** whether identical read requests share answers */
  sharedAnswers: boolean;
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

/** Reads the stored history as a starting process does: the time it takes and the heap it holds. */
async function measureHistoryLoad(app: ReturnType<typeof buildApp>) {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const started = performance.now();
  const history = await new RateHistoryStore(app.services.db).current();
  const historyLoadMs = performance.now() - started;
  gc?.();
  const historyHeapBytes = gc ? process.memoryUsage().heapUsed - heapBefore : null;
  return { history, historyLoadMs, historyHeapBytes };
}

/** `sharedAnswers`: whether identical read requests share answers (BENCH_SHARED_ANSWERS) */
export async function startServers(sharedAnswers = process.env.BENCH_SHARED_ANSWERS !== 'off'): Promise<RunningServers> {
  const storage = await openBenchStorage();
  const servers: Server[] = [];
  let app: ReturnType<typeof buildApp> | undefined;
  const closeAll = async () => {
    try {
      await Promise.all(servers.map(close));
      await app?.close(); // usage counts, before the database goes
    } finally {
      await storage.destroy();
    }
  };
  try {
    const operatorToken = randomBytes(24).toString('hex');
    const config = parseConfig({
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      WEBHOOK_KEY: randomBytes(32).toString('base64url'),
      SHARED_ANSWERS: sharedAnswers ? 'on' : 'off',
      ...(storage.databaseUrl && { DATABASE_URL: storage.databaseUrl }),
    });
    app = buildApp({ config, db: storage.db, operatorToken, clock: () => NOW, logger: pino({ level: config.LOG_LEVEL }) });
    const seeded = await seed(app, operatorToken);
    const { history, historyLoadMs, historyHeapBytes } = await measureHistoryLoad(app);

    // The bare body must be exactly as long as a real /latest answer.
    const latest = await app.web.fetch('http://rates.bench/latest', { headers: { Authorization: `Bearer ${seeded.key}` } });
    const latestBody = await latest.text();
    if (latest.status !== 200) throw new Error(`/latest answered ${latest.status} while starting: ${latestBody}`);
    if (latest.headers.get('content-type') !== JSON_CONTENT_TYPE) throw new Error(`/latest has content type ${latest.headers.get('content-type')}`);
    const latestBytes = Buffer.byteLength(latestBody);

    const service = createListener(app.web, { limits: listenerLimitsOf(config), logger: app.logger });
    const bare = createBareServer(latestBytes);
    servers.push(service, bare);
    const [serviceUrl, bareUrl] = await Promise.all([listen(service, 0, '127.0.0.1'), listen(bare, 0, '127.0.0.1')]);
    return {
      info: {
        serviceUrl: serviceUrl,
        bareUrl: bareUrl,
        storage: storage.label,
        source: HISTORY.source,
        key: seeded.key,
        accountKeys: seeded.accountKeys,
        days: seeded.days,
        values: history.values,
        historyLoadMs,
        historyHeapBytes,
        sharedAnswers,
        firstDate: FIRST_DATE,
        lastDate: LAST_DATE,
        latestBytes,
        pid: process.pid,
      },
      close: closeAll,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
