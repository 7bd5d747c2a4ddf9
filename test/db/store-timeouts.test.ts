// Every Postgres call has a time bound (issue 8): configuration gives the bounds, and a statement
// past its bound ends as StoreUnavailableError (503) while the pool keeps serving.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config.js';
import { openDatabase, targetFromConfig, type OpenDatabase } from '../../src/db/connect.js';
import { StoreUnavailableError } from '../../src/errors.js';
import { createTestDatabaseUrl } from '../support/db.js';

describe('store time bounds and pool size in the configuration', () => {
  it('default to 1 s for a connection, 1 s for a statement and 10 connections, and reach the Postgres target', () => {
    const config = parseConfig({ DATABASE_URL: 'postgres://db.example.test/rates' });
    expect(targetFromConfig(config)).toEqual({
      kind: 'postgres',
      url: 'postgres://db.example.test/rates',
      maxConnections: 10,
      timeouts: { connectMs: 1000, statementMs: 1000 },
    });
    expect(targetFromConfig(parseConfig({ DATABASE_URL: 'postgres://h/d', DATABASE_STATEMENT_TIMEOUT_MS: '250' }))).toMatchObject({
      timeouts: { statementMs: 250 },
    });
    expect(targetFromConfig(parseConfig({ DATABASE_URL: 'postgres://h/d', DATABASE_POOL_SIZE: '3' }))).toMatchObject({ maxConnections: 3 });
  });

  it('refuse a bound that is not a whole number of milliseconds from 100 to 60000', () => {
    for (const bad of ['0', '99', '60001', '1.5', 'soon']) {
      expect(() => parseConfig({ DATABASE_CONNECT_TIMEOUT_MS: bad })).toThrow(ConfigError);
      expect(() => parseConfig({ DATABASE_STATEMENT_TIMEOUT_MS: bad })).toThrow(/DATABASE_STATEMENT_TIMEOUT_MS/);
    }
  });

  it('refuse a pool size that is not a whole number from 1 to 100', () => {
    for (const bad of ['0', '101', '2.5', 'many', '-1']) expect(() => parseConfig({ DATABASE_POOL_SIZE: bad })).toThrow(/DATABASE_POOL_SIZE/);
  });
});

describe.skipIf(!process.env.DATABASE_URL)('a statement past its bound (Postgres; skipped without DATABASE_URL)', () => {
  let database: { url: string; drop(): Promise<void> } | null;
  let open: OpenDatabase;
  beforeAll(async () => {
    database = await createTestDatabaseUrl();
    open = await openDatabase({ kind: 'postgres', url: database!.url, maxConnections: 1, timeouts: { connectMs: 1000, statementMs: 300 } });
  });
  afterAll(async () => {
    await open?.db.destroy();
    await database?.drop();
  });

  it('ends as StoreUnavailableError (a 503) soon after the bound, and the next statement is served', async () => {
    const started = Date.now();
    const error = await sql`select pg_sleep(5)`.execute(open.db).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as StoreUnavailableError).code).toBe('service_unavailable');
    expect(Date.now() - started).toBeLessThan(1_500);
    const { rows } = await sql<{ one: number }>`select 1 as one`.execute(open.db);
    expect(rows).toEqual([{ one: 1 }]);
  });
});

describe.skipIf(!process.env.DATABASE_URL)('the pool size (Postgres; skipped without DATABASE_URL)', () => {
  it('bounds the connections one process opens: six statements at once share DATABASE_POOL_SIZE=2 connections', async () => {
    const database = (await createTestDatabaseUrl())!;
    const open = await openDatabase(targetFromConfig(parseConfig({ DATABASE_URL: database.url, DATABASE_POOL_SIZE: '2' })));
    try {
      const backends = await Promise.all(
        Array.from({ length: 6 }, async () => (await sql<{ pid: number }>`select pg_backend_pid() as pid, pg_sleep(0.05)`.execute(open.db)).rows[0]!.pid),
      );
      expect(new Set(backends).size).toBe(2);
      expect(open.pool!()).toMatchObject({ total: 2 });
    } finally {
      await open.db.destroy();
      await database.drop();
    }
  });
});
