// `npm start`: opens the database and, while it opens, loads the rest of the service (src/start.ts),
// which migrates, builds the app and listens on the public and internal ports. Opening PGlite
// compiles its WebAssembly and starts Postgres; loading the service's modules is the other large
// part of a start, so the two overlap rather than follow each other.
import type { LogEvent } from 'kysely';
import { ConfigError, parseConfig } from './config.js';
import { openDatabase, targetFromConfig } from './db/connect.js';
import { StoreOpenError } from './errors.js';
import { findRunningService, keepDataDirPrivate } from './service-file.js';

async function main(): Promise<void> {
  const config = parseConfig(process.env);
  keepDataDirPrivate(config.DATA_DIR);
  const running = config.DATABASE_URL ? null : await findRunningService(config.DATA_DIR);
  if (running) {
    // PGlite is one process's database. The directory's lock would refuse this start too, but only
    // after waiting out a killed holder's lock; a service that answers is refused at once.
    throw new ConfigError(`A service (pid ${running.pid}) already uses DATA_DIR ${config.DATA_DIR}; stop it first or use another DATA_DIR`);
  }
  let reportQuery: ((event: LogEvent) => void) | null = null;
  const database = openDatabase(targetFromConfig(config), { log: (event) => reportQuery?.(event) });
  // Handled here too, so a failed open waiting behind the module load is never an unhandled rejection.
  database.catch(() => undefined);
  const { start } = await import('./start.js');
  await start(config, { database, reportQueriesTo: (log) => (reportQuery = log) });
}

main().catch((error: unknown) => {
  // A mistake in the setting or a store that cannot be opened is said in one line; anything else in full.
  console.error(error instanceof ConfigError || error instanceof StoreOpenError ? error.message : error);
  process.exit(error instanceof ConfigError ? 2 : 1);
});
