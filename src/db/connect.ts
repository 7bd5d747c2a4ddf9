// Opens the database: PGlite (Postgres in WASM) in a local directory by default, or a Postgres
// server when a URL is given. Both return the same types for the same columns.
import { mkdirSync } from 'node:fs';
import { PGlite, type QueryOptions, type Results } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, sql, type LogEvent, type PostgresPool, type PostgresPoolClient } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import type pg from 'pg';
import { StoreOpenError, StoreUnavailableError } from '../errors.js';
import { lockDirectory } from './directory-lock.js';
import { narrowToOwner } from '../private-files.js';
import type { PoolUse } from '../metrics.js';
import type { Database } from './database.js';

const DATE_OID = 1082;
const INT8_OID = 20;

// Dates stay 'YYYY-MM-DD' strings (a JS Date would drag in a time zone); counts come back as
// numbers on both drivers (pg gives int8 as a string, PGlite as a number).
const keepText = (value: string) => value;
const toNumber = (value: string) => Number(value);

/** How long a Postgres call may take before it fails, so a stalled server cannot hang a request. */
export interface StoreTimeouts {
  /** getting a connection from the pool, a new connection's start-up included */
  connectMs: number;
  /**
   * one statement: the server cancels it (statement_timeout) and the client stops waiting
   * (query_timeout); absent, a statement may run as long as the server lets it (migrations)
   */
  statementMs?: number;
}

export type DatabaseTarget =
  { kind: 'pglite'; dataDir?: string; loadDataDir?: Blob } | { kind: 'postgres'; url: string; maxConnections?: number; timeouts?: StoreTimeouts };

export interface OpenDatabase {
  db: Kysely<Database>;
  target: DatabaseTarget;
  /** the pool's connections now; null for the embedded database (one connection, no pool) */
  pool: (() => PoolUse) | null;
  /** a consistent copy of the embedded database's directory (a gzipped tar), taken while it runs; null on a Postgres server (pg_dump's work) */
  snapshot: (() => Promise<Blob>) | null;
}

export interface OpenOptions {
  /** Kysely's log hook: called after every statement with its duration */
  log?: (event: LogEvent) => void;
}

export async function openDatabase(target: DatabaseTarget, options: OpenOptions = {}): Promise<OpenDatabase> {
  const log = options.log ? { log: options.log } : {};
  if (target.kind === 'postgres') {
    // pg loads only for a Postgres server: an embedded start does without it.
    const { Pool, types } = (await import('pg')).default;
    const pool = new Pool({
      connectionString: target.url,
      max: target.maxConnections ?? 10,
      ...(target.timeouts && { connectionTimeoutMillis: target.timeouts.connectMs }),
      ...(target.timeouts?.statementMs && {
        statement_timeout: target.timeouts.statementMs,
        // A frozen server never answers, so its own statement_timeout never fires: the client
        // stops waiting too, a little later so that a statement the server did cancel says so.
        query_timeout: target.timeouts.statementMs + CLIENT_GRACE_MS,
      }),
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
          if (oid === DATE_OID) return keepText;
          if (oid === INT8_OID) return toNumber;
          return types.getTypeParser(oid, format) as (value: string) => unknown;
        }) as typeof types.getTypeParser,
      },
    });
    // A connection that dies while idle (a server restart, a failover) is reported on the pool;
    // unheard, it would end the process. The pool replaces it on the next query.
    pool.on('error', (error) => console.error(`postgres: idle connection lost: ${error.message}`));
    return {
      db: new Kysely<Database>({ dialect: new PostgresDialect({ pool: reportingStalls(pool) }), ...log }),
      target,
      pool: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
      snapshot: null,
    };
  }
  let release = () => {};
  if (target.dataDir) {
    mkdirSync(target.dataDir, { recursive: true });
    release = await lockDirectory(target.dataDir);
  }
  const pglite = await PGlite.create(target.dataDir, {
    loadDataDir: target.loadDataDir,
    parsers: { [DATE_OID]: keepText, [INT8_OID]: toNumber },
  }).catch((error: unknown) => {
    release();
    throw error;
  });
  if (target.dataDir) narrowToOwner(target.dataDir);
  return {
    db: new Kysely<Database>({ dialect: new PGliteDialect(dialectClient(pglite, release)), ...log }),
    target,
    pool: null,
    snapshot: () => snapshotOf(pglite),
  };
}

/**
 * The database directory as one file, for `cli backup`. PGlite copies its files while no statement
 * runs, so the copy holds exactly the transactions committed by then (one still open is rolled
 * back when the copy is opened, as after a crash); the checkpoint first writes every change into
 * the tables' files, so opening the copy has little to replay.
 */
async function snapshotOf(pglite: PGlite): Promise<Blob> {
  await pglite.exec('checkpoint');
  return pglite.dumpDataDir('gzip');
}

/**
 * PGlite as the dialect uses it, with two changes. PGlite's `query` runs a statement through the
 * extended protocol: six calls into the database (parse, describe, bind, describe, execute, sync)
 * where `exec`'s simple protocol makes two. A statement without parameters gains nothing from the
 * extended protocol, so it goes through `exec`: chiefly the begin and commit of every transaction.
 * And closing it releases the directory's lock (directory-lock.ts) once the database is shut.
 * Everything else is PGlite's own.
 */
function dialectClient(pglite: PGlite, release: () => void): PGlite {
  async function close(): Promise<void> {
    try {
      await pglite.close();
    } finally {
      release();
    }
  }
  async function query<T>(text: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> {
    if (params && params.length > 0) return pglite.query<T>(text, params, options);
    const results = await pglite.exec(text, options);
    // Kysely sends one statement at a time: its result is the last (and only) one
    return results.at(-1) as Results<T>;
  }
  return new Proxy(pglite, {
    get(target, property) {
      if (property === 'query') return query;
      if (property === 'close') return close;
      const value: unknown = Reflect.get(target, property, target);
      // PGlite keeps its state in private fields, so its methods must run on PGlite itself
      return typeof value === 'function' ? (value as (this: PGlite, ...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * The first statement on a store, sent on its own: a server that cannot be used (nothing listening,
 * no such database, a login refused) stops the start or the command with a StoreOpenError naming
 * the server, without its password, and why, rather than with the driver's stack trace. An embedded
 * store is opened by openDatabase itself.
 */
export async function reachStore(db: Kysely<Database>, target: DatabaseTarget): Promise<void> {
  if (target.kind !== 'postgres') return;
  try {
    await sql`select 1`.execute(db);
  } catch (error) {
    // A stall wraps the driver's own error, which says what happened (refused, timed out).
    const reason = error instanceof StoreUnavailableError && error.cause instanceof Error ? error.cause : error;
    throw new StoreOpenError(`Cannot open the database at ${withoutPassword(target.url)}: ${reason instanceof Error ? reason.message : String(reason)}`, {
      cause: error,
    });
  }
}

/** The URL with its password hidden, where it stands before the host or (as pg also reads it) in the query. */
function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    if (parsed.searchParams.has('password')) parsed.searchParams.set('password', '***');
    return parsed.href;
  } catch {
    return 'DATABASE_URL';
  }
}

export function targetFromConfig(config: {
  DATABASE_URL?: string;
  DATA_DIR: string;
  DATABASE_CONNECT_TIMEOUT_MS: number;
  DATABASE_STATEMENT_TIMEOUT_MS: number;
  DATABASE_POOL_SIZE: number;
}): DatabaseTarget {
  return config.DATABASE_URL
    ? {
        kind: 'postgres',
        url: config.DATABASE_URL,
        maxConnections: config.DATABASE_POOL_SIZE,
        timeouts: { connectMs: config.DATABASE_CONNECT_TIMEOUT_MS, statementMs: config.DATABASE_STATEMENT_TIMEOUT_MS },
      }
    : { kind: 'pglite', dataDir: `${config.DATA_DIR}/pgdata` };
}

const CLIENT_GRACE_MS = 100;

// SQLSTATEs of a server that is going away or not there yet, or cancelled a statement on its
// timeout: classes 08 (connection exception) and 57 (operator intervention).
const UNAVAILABLE_SQLSTATE = /^(08|57)/;

/** Whether the server itself answered with this error (a SQLSTATE), rather than the client or the network. */
function hasSqlState(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

/** Errors that say the store did not answer (in time), rather than that a statement was wrong. */
function isStall(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return UNAVAILABLE_SQLSTATE.test(code) || code.startsWith('ECONN') || code === 'ETIMEDOUT' || code === 'EPIPE';
  // pg and pg-pool give their own timeouts and lost connections no code
  return /timeout|Connection terminated/i.test(error.message);
}

/**
 * The pool as Kysely uses it, with two changes: a stalled or unreachable store is reported as
 * StoreUnavailableError (a 503 on every endpoint), and a connection whose statement stalled is
 * discarded rather than reused; one whose statement the server never answered also takes no further
 * statement, since it stays busy with that statement until the server answers.
 */
function reportingStalls(pool: pg.Pool): PostgresPool {
  const unavailable = (error: unknown) =>
    isStall(error) ? new StoreUnavailableError('The data store did not answer in time; try again shortly', { cause: error }) : error;
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect().catch((error: unknown) => {
        throw unavailable(error);
      });
      let stalled = false;
      /** a statement went unanswered (the client's timeout, a lost connection): the connection is still busy with it */
      let unanswered = false;
      // A connection that dies while checked out but between statements (inside a transaction)
      // is reported on the client itself, where pg-pool no longer listens: unheard, it would end
      // the process. It is marked to be discarded; the next statement on it fails as a stall.
      const lost = () => void (stalled = true);
      client.on('error', lost);
      const query = async (sql: string, parameters: readonly unknown[]) => {
        // A statement sent after one the server never answered would queue behind it and wait out a
        // bound of its own (a transaction's rollback after its start or statement stalled): it fails
        // at once. A statement the server cancelled leaves the connection usable for the rollback.
        if (unanswered) throw unavailable(new Error('Statement not sent: an earlier statement on this connection hit its timeout'));
        try {
          return await client.query(sql, [...parameters]);
        } catch (error) {
          const stall = isStall(error);
          stalled ||= stall;
          unanswered ||= stall && !hasSqlState(error);
          throw unavailable(error);
        }
      };
      return {
        // Kysely calls the cursor form only when given a cursor class, which this dialect is not.
        query: query as unknown as PostgresPoolClient['query'],
        release: () => {
          client.off('error', lost);
          client.release(stalled);
        },
      };
    },
    end: () => pool.end(),
  };
}
