// Which process leads (polls the RBA and publishes) when several share one Postgres: the one whose
// dedicated connection holds a session-level advisory lock. The lock lives exactly as long as that
// connection, so a process that dies or loses its connection lets another take over. On the
// embedded database one process owns the directory, so it always leads.
import type pg from 'pg';
import type { DatabaseTarget } from './connect.js';

export interface LeaderLock {
  /**
   * Takes the lock if it is free, or confirms (one round trip) that the connection holding it is
   * still alive. True while this process leads.
   */
  tryAcquire(): Promise<boolean>;
  /** What the last tryAcquire found, false as soon as the holding connection is known lost. */
  isHeld(): boolean;
  /** Lets the lock go and closes the connection; a later tryAcquire starts over. */
  release(): Promise<void>;
}

export interface LeaderLockOptions {
  /** a lost or failed connection (the lock is then not held; the next tryAcquire connects anew) */
  onError?: (error: unknown) => void;
}

export function openLeaderLock(target: DatabaseTarget, name: string, options: LeaderLockOptions = {}): LeaderLock {
  if (target.kind === 'pglite') {
    let held = false;
    return {
      tryAcquire: async () => (held = true),
      isHeld: () => held,
      release: async () => void (held = false),
    };
  }
  return postgresLeaderLock(target.url, name, options);
}

function postgresLeaderLock(url: string, name: string, options: LeaderLockOptions): LeaderLock {
  let client: pg.Client | null = null;
  let held = false;
  // One tryAcquire or release at a time: they share the connection.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => {});
    return next;
  };

  const drop = (which: pg.Client) => {
    if (client !== which) return;
    client = null;
    held = false;
    void which.end().catch(() => {});
  };

  const connect = async (): Promise<pg.Client> => {
    // pg loads only for a Postgres server: an embedded start does without it.
    const { Client } = (await import('pg')).default;
    const next = new Client({ connectionString: url, keepAlive: true, application_name: `leader:${name}` });
    // A connection that dies (server restart, pg_terminate_backend, network) takes the lock with it.
    next.on('error', (error) => {
      options.onError?.(error);
      drop(next);
    });
    next.on('end', () => drop(next));
    await next.connect();
    client = next;
    return next;
  };

  return {
    tryAcquire: () =>
      serial(async () => {
        try {
          if (held && client) {
            await client.query('select 1');
            return held; // the 'error' handler may have run meanwhile
          }
          const connection = client ?? (await connect());
          const { rows } = await connection.query<{ locked: boolean }>('select pg_try_advisory_lock(hashtext($1)) as locked', [name]);
          held = client === connection && rows[0]?.locked === true;
          return held;
        } catch (error) {
          options.onError?.(error);
          if (client) drop(client);
          held = false;
          return false;
        }
      }),
    isHeld: () => held,
    release: () =>
      serial(async () => {
        const connection = client;
        const wasHeld = held;
        held = false;
        client = null;
        if (!connection) return;
        try {
          if (wasHeld) await connection.query('select pg_advisory_unlock(hashtext($1))', [name]);
        } catch {
          // closing the connection below releases it anyway
        }
        await connection.end().catch(() => {});
      }),
  };
}
