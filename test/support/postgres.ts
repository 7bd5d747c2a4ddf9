// Databases on the Postgres server named by DATABASE_URL: the run's template and one copy per test
// file; and servers of a test's own, for tests that stop or freeze their store.
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../../deploy/cluster.js';

const execFileAsync = promisify(execFile);

export function templateName(url: string): string {
  return `${new URL(url).pathname.slice(1) || 'postgres'}_template`;
}

export async function adminQuery(url: string, sql: string): Promise<void> {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** The copies of `template` the run's test files made (test/support/db.ts names them `<base>_t<hex>`). */
export async function testDatabaseCopies(url: string, template: string): Promise<string[]> {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const base = template.replace(/_template$/, '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const { rows } = await client.query<{ datname: string }>('select datname from pg_database where datname ~ $1', [`^${base}_t[0-9a-f]{12}$`]);
    return rows.map((row) => row.datname);
  } finally {
    await client.end();
  }
}

/**
 * A Postgres server of the test's own (initdb and pg_ctl on a free port and a temporary data
 * directory), for tests that stop or freeze their store: the shared server is never touched.
 * Postgres refuses to run as root, so as root the server runs as the `postgres` user.
 */
export interface OwnPostgres {
  url: string;
  /** the server stopped at once, as by a crash or a power cut (`pg_ctl stop -m immediate`) */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** SIGSTOP to the postmaster and every backend: connections stay open and nothing answers */
  freeze(): void;
  thaw(): void;
  /** one query on a connection of its own */
  query<R extends Record<string, unknown>>(text: string, values?: unknown[]): Promise<R[]>;
  destroy(): Promise<void>;
}

/** The pids whose parent is `pid`, from Linux's /proc. */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'aud-rates-own-pg-'));
  const port = await freePort();
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }));
  const asUser = process.getuid?.() === 0 ? { uid: id('-u'), gid: id('-g') } : {};
  if (asUser.uid !== undefined && asUser.gid !== undefined) chownSync(dir, asUser.uid, asUser.gid);
  const run = (command: string, args: string[]) => execFileAsync(command, args, { ...asUser, cwd: dir });
  const data = join(dir, 'data');
  await run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
  const start = async () => {
    await run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-o', options, 'start']);
  };
  await start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let frozen: number[] = [];
  const thaw = () => {
    for (const pid of frozen) process.kill(pid, 'SIGCONT');
    frozen = [];
  };
  return {
    url,
    stop: async () => {
      await run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    },
    start,
    freeze() {
      const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      frozen = [postmaster, ...childrenOf(postmaster)];
      for (const pid of frozen) process.kill(pid, 'SIGSTOP');
    },
    thaw,
    async query<R extends Record<string, unknown>>(text: string, values: unknown[] = []) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query<R>(text, values)).rows;
      } finally {
        await client.end();
      }
    },
    async destroy() {
      thaw();
      await run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
