import { setTimeout as sleep } from 'node:timers/promises';
import { inspect } from 'node:util';
import { Migrator, sql, type Kysely, type Migration, type MigrationResultSet } from 'kysely';
import { openDatabase, reachStore, type OpenDatabase } from './connect.js';
import type { Database } from './database.js';
import * as m0001 from './migrations/0001_rates_and_keys.js';
import * as m0002 from './migrations/0002_quota_and_usage.js';
import * as m0003 from './migrations/0003_webhooks.js';
import * as m0004 from './migrations/0004_free_allowance.js';
import * as m0005 from './migrations/0005_history_imports.js';
import * as m0006 from './migrations/0006_dashboard.js';
import * as m0007 from './migrations/0007_webhook_attempts.js';
import * as m0008 from './migrations/0008_conversions_keyless_polls.js';
import * as m0009 from './migrations/0009_account_usage_rollups.js';
import * as m0010 from './migrations/0010_webhook_rollups.js';
import * as m0011 from './migrations/0011_grant_units.js';
import * as m0012 from './migrations/0012_grant_units_no_key_lock.js';
import * as m0013 from './migrations/0013_unanswered_grant_refunds.js';
import * as m0014 from './migrations/0014_refunds_per_account.js';
import * as m0015 from './migrations/0015_grant_units_many.js';
import * as m0016 from './migrations/0016_grant_units_for_all.js';
import * as m0017 from './migrations/0017_delivery_log.js';
import * as m0018 from './migrations/0018_key_restrictions.js';
import * as m0019 from './migrations/0019_rate_alerts.js';
import * as m0020 from './migrations/0020_grant_marks.js';
import * as m0021 from './migrations/0021_grant_units_uncapped.js';

// Listed explicitly rather than read from disk, so they run the same under tsx, a bundle or tests.
const migrations: Record<string, Migration> = {
  '0001_rates_and_keys': m0001,
  '0002_quota_and_usage': m0002,
  '0003_webhooks': m0003,
  '0004_free_allowance': m0004,
  '0005_history_imports': m0005,
  '0006_dashboard': m0006,
  '0007_webhook_attempts': m0007,
  '0008_conversions_keyless_polls': m0008,
  '0009_account_usage_rollups': m0009,
  '0010_webhook_rollups': m0010,
  '0011_grant_units': m0011,
  '0012_grant_units_no_key_lock': m0012,
  '0013_unanswered_grant_refunds': m0013,
  '0014_refunds_per_account': m0014,
  '0015_grant_units_many': m0015,
  '0016_grant_units_for_all': m0016,
  '0017_delivery_log': m0017,
  '0018_key_restrictions': m0018,
  '0019_rate_alerts': m0019,
  '0020_grant_marks': m0020,
  '0021_grant_units_uncapped': m0021,
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
