// Opens the database: PGlite (Postgres in WASM) in a local directory by default, or a Postgres
// server when a URL is given. Both return the same types for the same columns.
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, type LogEvent } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import { narrowToOwner } from '../private-files.js';
import type { PoolUse } from '../metrics.js';
import type { Database } from './database.js';

const DATE_OID = 1082;
const INT8_OID = 20;

// Dates stay 'YYYY-MM-DD' strings (a JS Date would drag in a time zone); counts come back as
// numbers on both drivers (pg gives int8 as a string, PGlite as a number).
const keepText = (value: string) => value;
const toNumber = (value: string) => Number(value);

export type DatabaseTarget =
  | { kind: 'pglite'; dataDir?: string; loadDataDir?: Blob }
  | { kind: 'postgres'; url: string; maxConnections?: number };

export interface OpenDatabase {
  db: Kysely<Database>;
  target: DatabaseTarget;
  /** the pool's connections now; null for the embedded database (one connection, no pool) */
  pool: (() => PoolUse) | null;
}

export interface OpenOptions {
  /** Kysely's log hook: called after every statement with its duration */
  log?: (event: LogEvent) => void;
}

export async function openDatabase(target: DatabaseTarget, options: OpenOptions = {}): Promise<OpenDatabase> {
  const log = options.log ? { log: options.log } : {};
  if (target.kind === 'postgres') {
    const pool = new pg.Pool({
      connectionString: target.url,
      max: target.maxConnections ?? 10,
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
          if (oid === DATE_OID) return keepText;
          if (oid === INT8_OID) return toNumber;
          return pg.types.getTypeParser(oid, format) as (value: string) => unknown;
        }) as typeof pg.types.getTypeParser,
      },
    });
    // A connection that dies while idle (a server restart, a failover) is reported on the pool;
    // unheard, it would end the process. The pool replaces it on the next query.
    pool.on('error', (error) => console.error(`postgres: idle connection lost: ${error.message}`));
    return {
      db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }), ...log }),
      target,
      pool: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    };
  }
  if (target.dataDir) mkdirSync(target.dataDir, { recursive: true });
  const pglite = await PGlite.create(target.dataDir, {
    loadDataDir: target.loadDataDir,
    parsers: { [DATE_OID]: keepText, [INT8_OID]: toNumber },
  });
  if (target.dataDir) narrowToOwner(target.dataDir);
  return { db: new Kysely<Database>({ dialect: new PGliteDialect(pglite), ...log }), target, pool: null };
}

export function targetFromConfig(config: { DATABASE_URL?: string; DATA_DIR: string }): DatabaseTarget {
  return config.DATABASE_URL
    ? { kind: 'postgres', url: config.DATABASE_URL }
    : { kind: 'pglite', dataDir: `${config.DATA_DIR}/pgdata` };
}
