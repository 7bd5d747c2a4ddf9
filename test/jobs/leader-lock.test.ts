// The leader lock: on Postgres a session-level advisory lock held by a dedicated connection, so
// exactly one of several holders leads, and releasing it or losing the connection lets another
// take over. On the embedded database the one process owning it always leads.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openLeaderLock, type LeaderLock } from '../../src/db/leader-lock.js';

const opened: LeaderLock[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((lock) => lock.release()));
});

describe('on the embedded database', () => {
  it('is always held by the one process', async () => {
    const lock = openLeaderLock({ kind: 'pglite' }, 'rba-scheduler');
    opened.push(lock);
    expect(await lock.tryAcquire()).toBe(true);
    expect(lock.isHeld()).toBe(true);
    expect(await lock.tryAcquire()).toBe(true);
  });
});

describe.skipIf(!process.env.DATABASE_URL)('on Postgres', () => {
  // Advisory locks belong to a database; the server's maintenance database serves every test.
  const server = new URL(process.env.DATABASE_URL ?? 'postgres://localhost/');
  server.pathname = '/postgres';
  const url = server.toString();
  const open = (name: string, onError?: (e: unknown) => void) => {
    const lock = openLeaderLock({ kind: 'postgres', url }, name, onError ? { onError } : {});
    opened.push(lock);
    return lock;
  };
  const freshName = () => `leader-test-${randomBytes(6).toString('hex')}`;

  async function admin<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<T>(sql, params)).rows;
    } finally {
      await client.end();
    }
  }

  it('two locks on one name: exactly one holds; releasing lets the other acquire', async () => {
    const name = freshName();
    const a = open(name);
    const b = open(name);
    const results = await Promise.all([a.tryAcquire(), b.tryAcquire()]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const [holder, other] = results[0] ? [a, b] : [b, a];
    expect(holder.isHeld()).toBe(true);
    expect(other.isHeld()).toBe(false);
    // Asking again changes nothing: the holder confirms, the other is still refused.
    expect(await holder.tryAcquire()).toBe(true);
    expect(await other.tryAcquire()).toBe(false);
    await holder.release();
    expect(holder.isHeld()).toBe(false);
    expect(await other.tryAcquire()).toBe(true);
    expect(await holder.tryAcquire()).toBe(false);
  });

  it('different names do not exclude each other', async () => {
    expect(await open(freshName()).tryAcquire()).toBe(true);
    expect(await open(freshName()).tryAcquire()).toBe(true);
  });

  it("the holder's connection closed: the lock is lost and the other acquires; the first retries on a new connection", async () => {
    const name = freshName();
    const errors: unknown[] = [];
    const a = open(name, (e) => errors.push(e));
    const b = open(name);
    expect(await a.tryAcquire()).toBe(true);
    expect(await b.tryAcquire()).toBe(false);
    const killed = await admin<{ killed: boolean }>(
      'select pg_terminate_backend(pid) as killed from pg_stat_activity where application_name = $1 and pid <> pg_backend_pid()',
      [`leader:${name}`],
    );
    expect(killed.filter((r) => r.killed).length).toBeGreaterThanOrEqual(1);
    // b's connection was terminated too (same application name): both reconnect on their next try.
    await expect.poll(() => a.isHeld(), { timeout: 5_000, interval: 20 }).toBe(false);
    const again = await Promise.all([b.tryAcquire(), a.tryAcquire()]);
    expect(again.filter(Boolean)).toHaveLength(1);
    expect(errors.length).toBeGreaterThan(0);
  });

  it("only the holder's connection closed: the waiting one takes over", async () => {
    const name = freshName();
    const a = open(name);
    const b = open(name);
    expect(await a.tryAcquire()).toBe(true);
    expect(await b.tryAcquire()).toBe(false);
    // The backend holding the advisory lock on this name.
    const [holder] = await admin<{ pid: number }>(
      `select l.pid from pg_locks l where l.locktype = 'advisory' and l.granted and l.objid = (hashtext($1)::bigint & 4294967295)::oid and l.database = (select oid from pg_database where datname = current_database())`,
      [name],
    );
    expect(holder).toBeDefined();
    await admin('select pg_terminate_backend($1)', [holder!.pid]);
    await expect.poll(() => a.isHeld(), { timeout: 5_000, interval: 20 }).toBe(false);
    expect(await b.tryAcquire()).toBe(true);
    expect(await a.tryAcquire()).toBe(false);
  });
});
