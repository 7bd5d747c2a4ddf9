// Three processes of one version started at the same instant on an empty Postgres database: one
// of them migrates (under the migration lock, src/db/migrate.ts), the others wait for it and then
// serve, and every migration ran once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../support/cli.js';
import { createEmptyDatabaseUrl } from '../support/db.js';
import pg from 'pg';

const PROCESSES = 3;

describe.skipIf(!process.env.DATABASE_URL)('three processes started at once on an empty database', () => {
  const services: RunningService[] = [];
  const dirs: string[] = [];
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop()));
    await drop?.();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('migrate once, and all serve', async () => {
    const database = (await createEmptyDatabaseUrl())!;
    drop = () => database.drop();
    const started = await Promise.allSettled(
      Array.from({ length: PROCESSES }, () => {
        const dataDir = mkdtempSync(join(tmpdir(), 'aud-rates-migrate-'));
        dirs.push(dataDir);
        // The shortest statement timeout: waiting for the lock outlasts it, as a long migration would the default.
        return startService({ DATA_DIR: dataDir, DATABASE_URL: database.url, DATABASE_STATEMENT_TIMEOUT_MS: '100' });
      }),
    );
    for (const outcome of started) if (outcome.status === 'fulfilled') services.push(outcome.value);
    expect(started.map((outcome) => (outcome.status === 'rejected' ? String(outcome.reason) : 'started'))).toEqual(Array(PROCESSES).fill('started'));

    const migrating = services.filter((s) => s.output().includes('migrations applied'));
    expect(migrating).toHaveLength(1);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const { rows } = await client.query<{ n: number }>('select name, count(*)::int as n from kysely_migration group by name').finally(() => client.end());
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.n === 1)).toBe(true);
    expect(migrating[0]!.output()).toContain(`${rows.length} migrations applied`);

    for (const service of services) {
      expect((await fetch(service.internalUrl.replace(/\/graphql$/, '/ready'))).status).toBe(200);
      expect((await service.get('/symbols')).status).toBe(200);
    }
  }, 90_000);
});
