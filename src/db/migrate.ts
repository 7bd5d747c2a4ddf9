import { setTimeout as sleep } from 'node:timers/promises';
import { inspect } from 'node:util';
import { Migrator, sql, type Kysely, type Migration, type MigrationResultSet } from 'kysely';
import { openDatabase, reachStore, type OpenDatabase } from './connect.js';
import type { Database } from './database.js';
import * as baseline from './migrations/0001_baseline.js';
import * as attemptBodies from './migrations/0002_attempt_bodies.js';

// Listed explicitly rather than read from disk, so they run the same under tsx, a bundle or tests.
const migrations: Record<string, Migration> = {
  '0001_baseline': baseline,
  '0002_attempt_bodies': attemptBodies,
};

export function migrator(db: Kysely<Database>): Migrator {
  return new Migrator({ db, provider: { getMigrations: async () => migrations } });
}

/**
 * Whether exactly the known migrations have run, in order: the usual start, which then skips the
 * migrator's lock and bookkeeping (a tenth of a start on PGlite). Anything else, a new database
 * included (no table yet), goes to the migrator, which runs or refuses as it always does.
 */
async function upToDate(db: Kysely<Database>): Promise<boolean> {
  const known = Object.keys(migrations);
  try {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
    return rows.length === known.length && rows.every((row, i) => row.name === known[i]);
  } catch {
    return false;
  }
}

/** The advisory lock every process of every version takes around migrating: one migrates, the others wait. */
const MIGRATION_LOCK = 'aud-rates:migrate';
const LOCK_RETRY_MS = 100;

/**
 * Brings the database to the latest migration; returns the names of the migrations this call ran
 * (none when it was up to date, or another process ran them meanwhile). Processes started together
 * on an older database take turns under a session-level advisory lock, held on one connection for
 * the whole run: the first migrates, and each of the others finds the work done once the lock is
 * its turn, and goes on to serve.
 */
export async function migrateToLatest(db: Kysely<Database>): Promise<string[]> {
  if (await upToDate(db)) return [];
  return db.connection().execute(async (connection) => {
    // Asked again and again rather than waited for in one statement, which the statement timeout would cut short.
    while (!(await sql<{ locked: boolean }>`select pg_try_advisory_lock(hashtext(${MIGRATION_LOCK})) as locked`.execute(connection)).rows[0]?.locked) {
      await sleep(LOCK_RETRY_MS);
    }
    try {
      if (await upToDate(connection)) return [];
      const outcome = await migrator(connection).migrateToLatest();
      throwOnFailure(outcome);
      return (outcome.results ?? []).map((result) => result.migrationName);
    } finally {
      await sql`select pg_advisory_unlock(hashtext(${MIGRATION_LOCK}))`.execute(connection);
    }
  });
}

/**
 * Brings an open database to the latest migration, as migrateToLatest does; the first use of a
 * store, so a Postgres server that cannot be used is refused here (reachStore). On a Postgres server
 * the migrations run on a connection of their own without the requests' statement bound: a
 * migration may rewrite a large table, or wait for a lock that a running process holds.
 */
export async function migrateStore({ db, target }: Pick<OpenDatabase, 'db' | 'target'>): Promise<string[]> {
  await reachStore(db, target);
  if (await upToDate(db)) return [];
  if (target.kind !== 'postgres') return migrateToLatest(db);
  const own = await openDatabase({ ...target, maxConnections: 1, ...(target.timeouts && { timeouts: { connectMs: target.timeouts.connectMs } }) });
  try {
    return await migrateToLatest(own.db);
  } finally {
    await own.db.destroy();
  }
}

export async function migrateDown(db: Kysely<Database>): Promise<void> {
  throwOnFailure(await migrator(db).migrateDown());
}

function throwOnFailure({ error, results }: MigrationResultSet): void {
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${error instanceof Error ? error.message : inspect(error)}`, { cause: error });
  }
}
