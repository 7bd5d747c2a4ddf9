// The service as `npm start` runs it (the bundle dist/main.js with its Node flags, in production
// mode) on a fresh store: embedded PGlite in a temporary directory, or, when DATABASE_URL is set, a
// new `bench_<random>` database on that server, dropped afterwards. Before the service starts, the
// operator commands import a synthetic 2018–2022 history, then the rates file, and give an
// Enterprise account a key. The RBA publishes 2018–2022 only as a workbook we do not hold, so that
// history is made up (test/support/rates.ts): the RBA's business days and decimals, not its values,
// so that /export from 2018 is measured on a history of the real size.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { SERVICE_NODE_FLAGS } from '../scripts/build.js';
import { rbaCsv, syntheticTable } from '../test/support/rates.js';
import type { Storage, Stored } from './targets.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface Service extends Stored {
  label: string;
  storage: Storage;
  origin: string;
  key: string;
  pid: number;
  /**
   * Seconds of CPU spent serving it so far: the service's process, and on Postgres the local
   * server's processes too, which do the work that PGlite does inside the service.
   */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

export function build(): void {
  const built = spawnSync(process.execPath, [join(ROOT, 'scripts/build-if-changed.js')], { stdio: 'inherit' });
  if (built.status !== 0) throw new Error('the build failed');
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

async function adminQuery(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function cli(env: NodeJS.ProcessEnv, args: string[]): Record<string, unknown> {
  const run = spawnSync(process.execPath, [join(ROOT, 'dist/cli.js'), ...args], { env, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`cli ${args.join(' ')} failed: ${run.stdout}${run.stderr}`);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

/** The process's resident memory in MiB, from /proc. */
export function rssOf(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

/**
 * Seconds of CPU (user + system) the process and its ended children have used, from /proc: a
 * Postgres server's ended backends count in its postmaster's; the service has no children.
 */
function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  // utime, stime, cutime and cstime, in USER_HZ (100 on Linux)
  return (fields[11]! + fields[12]! + fields[13]! + fields[14]!) / 100;
}

/** Seconds of CPU used by this machine's Postgres server, its ended backends included (nothing else uses it during a bench; 0 when it runs elsewhere). */
function postgresCpuSeconds(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') total += cpuSecondsOf(Number(entry));
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

/** The days of the synthetic history. */
export const SYNTHETIC = { start: '2018-01-02', end: '2022-12-30' } as const;

/** `extraEnv`: settings of this service alone (`--variant`). */
export async function startService(label: string, ratesFile: string, extraEnv: Record<string, string>): Promise<Service> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-'));
  const serverUrl = process.env.DATABASE_URL;
  const database = `bench_${randomBytes(6).toString('hex')}`;
  let databaseUrl: string | undefined;
  if (serverUrl) {
    await adminQuery(serverUrl, `CREATE DATABASE "${database}"`);
    const url = new URL(serverUrl);
    url.pathname = `/${database}`;
    databaseUrl = url.toString();
  }
  const [port, internalPort] = [await freePort(), await freePort()];
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    DATA_DIR: dataDir,
    ...(databaseUrl && { DATABASE_URL: databaseUrl }),
    PORT: String(port),
    INTERNAL_PORT: String(internalPort),
    RBA_HISTORY_URLS: 'off',
    SCHEDULER: 'off',
    SHUTDOWN_DELAY_MS: '0',
    LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  const cleanUp = async () => {
    rmSync(dataDir, { recursive: true, force: true });
    if (serverUrl) await adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  };
  try {
    const history = join(dataDir, 'synthetic-2018-2022.csv');
    writeFileSync(history, rbaCsv(syntheticTable(SYNTHETIC.start, SYNTHETIC.end)));
    cli(env, ['import', history]);
    const imported = cli(env, ['import', ratesFile]) as { firstDate: string; lastDate: string };
    cli(env, ['account', 'create', '--email', 'bench@example.test', '--plan', 'enterprise']);
    const { key } = cli(env, ['key', 'create', '--email', 'bench@example.test']) as { key: string };
    const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, join(ROOT, 'dist/main.js')], { env, stdio: ['ignore', 'inherit', 'inherit'] });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const stop = async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      await cleanUp();
    };
    const origin = `http://127.0.0.1:${port}`;
    for (let tries = 0; ; tries++) {
      if (child.exitCode !== null) throw new Error(`the service ${label} exited with code ${child.exitCode} while starting`);
      if (
        await fetch(`${origin}/status`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      if (tries > 600) {
        await stop();
        throw new Error(`the service ${label} did not start within a minute`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return {
      label,
      storage: serverUrl ? 'postgres' : 'pglite',
      origin,
      key,
      pid: child.pid!,
      cpuSeconds: () => cpuSecondsOf(child.pid!) + (serverUrl ? postgresCpuSeconds() : 0),
      firstDate: imported.firstDate,
      lastDate: imported.lastDate,
      stop,
    };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}
