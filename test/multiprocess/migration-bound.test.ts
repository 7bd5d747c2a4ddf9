// A migration is not held to the bound on the requests' statements (DATABASE_STATEMENT_TIMEOUT_MS):
// a process starting on a database one migration behind, while another session holds a lock the
// migration must wait for, waits and then migrates and serves, however short that bound.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connect.js';
import { migrateDown } from '../../src/db/migrate.js';
import { startService, type RunningService } from '../support/cli.js';
import { createTestDatabaseUrl } from '../support/db.js';

/** how long the migration is kept waiting, many times the statement bound below */
const HELD_MS = 1_500;

describe.skipIf(!process.env.DATABASE_URL)('a migration longer than the statement bound', () => {
  const cleanups: (() => unknown)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('waits for the lock it needs, then the service migrates and serves', async () => {
    const database = (await createTestDatabaseUrl())!;
    cleanups.push(() => database.drop());
    const { db } = await openDatabase({ kind: 'postgres', url: database.url });
    await migrateDown(db);
    await db.destroy();

    // Recording a migration writes to kysely_migration; a session holding it in SHARE mode stalls that write.
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    cleanups.push(() => holder.end());
    await holder.query('begin');
    await holder.query('lock table kysely_migration in share mode');

    const dataDir = mkdtempSync(join(tmpdir(), 'aud-rates-migration-bound-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    let settled = false;
    const starting = startService({ DATA_DIR: dataDir, DATABASE_URL: database.url, DATABASE_STATEMENT_TIMEOUT_MS: '100' }).finally(() => (settled = true));
    starting.then(
      (service) => cleanups.push(() => service.stop()),
      () => undefined,
    );

    const waiting = async () =>
      (await holder.query<{ n: number }>(`select count(*)::int as n from pg_locks where relation = 'kysely_migration'::regclass and not granted`)).rows[0]!.n;
    while (!settled && (await waiting()) === 0) await sleep(10);
    await sleep(HELD_MS);
    await holder.query('commit');

    const service: RunningService = await starting;
    expect(service.output()).toContain('1 migrations applied');
    expect((await service.get('/symbols')).status).toBe(200);
  }, 90_000);
});
