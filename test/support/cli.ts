// Real child processes for the operator CLI and the service, run from this test run's bundle (as
// `npm run cli` and `npm start` run dist/), each on a store of the test's own: a PGlite data directory seeded from the run's migrated
// template, or (when the suite runs on Postgres) a fresh database on the server plus a data
// directory for `operator-token` and `service.json`.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { print } from 'graphql';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, inject } from 'vitest';
import { SERVICE_NODE_FLAGS } from '../../scripts/build.js';
import { openDatabase } from '../../src/db/connect.js';
import type { Database } from '../../src/db/database.js';
import type { Plan } from '../../src/domain/plans.js';
import { graphql, type ResultOf, type TadaDocumentNode } from '../../src/graphql.js';
import { batchOf } from '../../src/jobs/import-rates.js';
import { parseRbaFile, type RbaTable } from '../../src/rba/index.js';
import type { ServiceFile } from '../../src/service-file.js';
import { CREATE_ACCOUNT, type OperatorResult, type VariablesArgs } from './app.js';
import { createTestDatabaseUrl, pgliteTemplate, pgliteTemplateFile } from './db.js';
import { standIn } from './stand-in.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const FIXTURE_DIR = fileURLToPath(new URL('../fixtures/rba/', import.meta.url));
export const fixturePath = (name: string) => join(FIXTURE_DIR, name);

/** Variables a child must not inherit from the test run: each child gets exactly the store's. */
const CONFIG_VARIABLES = [
  'DATABASE_URL',
  'DATABASE_CONNECT_TIMEOUT_MS',
  'DATABASE_STATEMENT_TIMEOUT_MS',
  'DATA_DIR',
  'PORT',
  'HOST',
  'INTERNAL_PORT',
  'INTERNAL_HOST',
  'OPERATOR_TOKEN',
  'LOG_LEVEL',
  'NODE_OPTIONS',
  'WEBHOOK_KEY',
  'WEBHOOK_ALLOW_PRIVATE_TARGETS',
  'WEBHOOK_LEASE_SECONDS',
  'RBA_RSS_URL',
  'RBA_CSV_URL',
  'RBA_HISTORY_URLS',
  'SCHEDULER',
  'SHUTDOWN_DELAY_MS',
  'HEADERS_TIMEOUT_MS',
  'REQUEST_TIMEOUT_MS',
  'KEEP_ALIVE_TIMEOUT_MS',
];

function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const name of CONFIG_VARIABLES) delete base[name];
  // Tests never reach the RBA: no history workbook unless a test names one.
  return { ...base, RBA_HISTORY_URLS: 'off', ...env };
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * The command that runs the CLI with `args`. An argument given as bytes reaches it as exactly those
 * bytes: spawn would send a string's UTF-8, so such a command line is built by sh's printf (octal
 * escapes, in a command substitution).
 */
function cliCommand(args: readonly (string | Uint8Array)[]): [string, string[]] {
  const node = [process.execPath, '--enable-source-maps', join(inject('bundleDir'), 'cli.js')];
  if (args.every((arg) => typeof arg === 'string')) return [node[0]!, [...node.slice(1), ...(args as string[])]];
  const words = [...node, ...args].map((arg) => {
    const octal = [...Buffer.from(arg)].map((byte) => `\\${byte.toString(8).padStart(3, '0')}`).join('');
    return `"$(printf '${octal}')"`;
  });
  return ['/bin/sh', ['-c', `exec ${words.join(' ')}`]];
}

/** Runs the bundled CLI with `args` to its end. */
export function runCli(args: readonly (string | Uint8Array)[], env: Record<string, string>, timeoutMs = 60_000): Promise<CliResult> {
  const started = Date.now();
  const [command, commandArgs] = cliCommand(args);
  return new Promise((resolve, reject) => {
    const child = spawn(command, commandArgs, {
      cwd: ROOT,
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/**
 * The one JSON object the CLI printed: stdout must be exactly one line holding one JSON object.
 * Throws (with the whole output) otherwise.
 */
export function oneJson(result: CliResult): Record<string, any> {
  const describe = () => `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
  if (!result.stdout.endsWith('\n') || result.stdout.indexOf('\n') !== result.stdout.length - 1) {
    throw new Error(`expected exactly one line on stdout\n${describe()}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(result.stdout);
  } catch {
    throw new Error(`stdout is not JSON\n${describe()}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error(`stdout is not one JSON object\n${describe()}`);
  }
  return value as Record<string, any>;
}

/** The output of a command that must succeed: exit 0 and one JSON object (not an error). */
export function succeeded(result: CliResult): Record<string, any> {
  const value = oneJson(result);
  if (result.code !== 0 || 'error' in value) {
    throw new Error(`expected success, got exit ${result.code}: ${result.stdout}${result.stderr}`);
  }
  return value;
}

export interface TableCounts {
  rates: number;
  publications: number;
  rate_corrections: number;
  accounts: number;
  api_keys: number;
}

export interface CliStore {
  kind: 'pglite' | 'postgres';
  dataDir: string;
  /** DATA_DIR, and DATABASE_URL on Postgres: the environment for a CLI or service child */
  env: Record<string, string>;
  /**
   * Runs `fn` on the store's database opened in this process. On PGlite only while no child
   * process holds the data directory (a PGlite directory belongs to one process at a time).
   */
  withDb<T>(fn: (db: Kysely<Database>) => Promise<T>): Promise<T>;
  counts(): Promise<TableCounts>;
  close(): Promise<void>;
}

export async function countRows(db: Kysely<Database>): Promise<TableCounts> {
  const count = async (table: keyof Database) => {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };
  return {
    rates: await count('rates'),
    publications: await count('publications'),
    rate_corrections: await count('rate_corrections'),
    accounts: await count('accounts'),
    api_keys: await count('api_keys'),
  };
}

const execFileAsync = promisify(execFile);

/** Puts the run's migrated template into `pgdata` (system tar; PGlite's own loader otherwise). */
async function seedPgliteDir(pgdata: string): Promise<void> {
  const template = pgliteTemplateFile();
  if (!template) return; // the child creates and migrates the database itself
  mkdirSync(pgdata, { recursive: true });
  try {
    await execFileAsync('tar', ['-xf', template, '-C', pgdata]);
    rmSync(join(pgdata, 'postmaster.pid'), { force: true });
    if (existsSync(join(pgdata, 'PG_VERSION'))) return;
  } catch {
    // fall through
  }
  rmSync(pgdata, { recursive: true, force: true });
  const { db } = await openDatabase({ kind: 'pglite', dataDir: pgdata, loadDataDir: pgliteTemplate() });
  await db.destroy();
}

/**
 * A store for CLI and service children. `embedded: true` forces PGlite (a data directory) even
 * when the suite runs on Postgres.
 */
export async function createCliStore(options: { embedded?: boolean } = {}): Promise<CliStore> {
  const dataDir = mkdtempSync(join(tmpdir(), 'aud-rates-cli-'));
  const postgres = options.embedded ? null : await createTestDatabaseUrl();
  if (postgres) {
    const { db } = await openDatabase({ kind: 'postgres', url: postgres.url, maxConnections: 2 });
    return {
      kind: 'postgres',
      dataDir,
      env: { DATA_DIR: dataDir, DATABASE_URL: postgres.url },
      withDb: (fn) => fn(db),
      counts: () => countRows(db),
      async close() {
        await db.destroy();
        await postgres.drop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const pgdata = join(dataDir, 'pgdata');
  await seedPgliteDir(pgdata);
  const withDb = async <T>(fn: (db: Kysely<Database>) => Promise<T>): Promise<T> => {
    const { db } = await openDatabase({ kind: 'pglite', dataDir: pgdata });
    try {
      return await fn(db);
    } finally {
      await db.destroy();
    }
  };
  return {
    kind: 'pglite',
    dataDir,
    env: { DATA_DIR: dataDir },
    withDb,
    counts: () => withDb(countRows),
    async close() {
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface HttpAnswer {
  status: number;
  body: any;
  headers: Headers;
}

export interface RunningService {
  child: ChildProcess;
  pid: number;
  file: ServiceFile;
  publicUrl: string;
  internalUrl: string;
  operatorToken: string;
  /** everything the service logged so far */
  output(): string;
  /** GET on the public port, with a key when given */
  get(path: string, key?: string): Promise<HttpAnswer>;
  /** one GraphQL operation on the internal endpoint with the operator token (for test set-up) */
  operator<Result, Variables>(document: TadaDocumentNode<Result, Variables>, ...variables: VariablesArgs<Variables>): Promise<Result>;
  /** signals the service and waits for it to exit */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * A test's service lives seconds, not days: compiled by V8's baseline compiler alone, the embedded
 * database's WebAssembly costs far less CPU to start than it would give back in speed. The code
 * run, and so every answer, is the same.
 */
const TEST_SERVICE_FLAGS = [...SERVICE_NODE_FLAGS, '--liftoff-only'];

/**
 * Starts the bundled service as `npm start` does, with TEST_SERVICE_FLAGS (or node with
 * `nodeArgs`) on PORT=0 and INTERNAL_PORT=0 and waits until it listens: its "listening" log line,
 * or its service.json naming this process.
 */
export async function startService(
  env: Record<string, string>,
  timeoutMs = 60_000,
  nodeArgs: readonly string[] = [...TEST_SERVICE_FLAGS, join(inject('bundleDir'), 'main.js')],
): Promise<RunningService> {
  const dataDir = env.DATA_DIR!;
  const child = spawn(process.execPath, nodeArgs, {
    cwd: ROOT,
    // No scheduler unless a test asks for one: tests never reach the RBA's servers. No balancer to
    // wait for on a stop either. A whole suite loads this machine far beyond production, where a
    // store a second late is a store away: tests of that bound set it themselves. The files running
    // at once start a dozen processes on one Postgres server: small pools keep them all within its
    // max_connections.
    env: childEnv({
      PORT: '0',
      INTERNAL_PORT: '0',
      LOG_LEVEL: 'info',
      SCHEDULER: 'off',
      SHUTDOWN_DELAY_MS: '0',
      DATABASE_CONNECT_TIMEOUT_MS: '5000',
      DATABASE_STATEMENT_TIMEOUT_MS: '5000',
      DATABASE_POOL_SIZE: '4',
      ...env,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const readServiceFile = (): ServiceFile | null => {
    try {
      const file = JSON.parse(readFileSync(join(dataDir, 'service.json'), 'utf8')) as ServiceFile;
      return file.pid === child.pid ? file : null;
    } catch {
      return null;
    }
  };
  const listening = new Promise<void>((resolve, reject) => {
    const done = (error?: Error) => {
      clearTimeout(timer);
      clearInterval(poll);
      if (error) reject(error);
      else resolve();
    };
    const timer = setTimeout(() => done(new Error(`the service did not listen within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const poll = setInterval(() => {
      if (readServiceFile()) done();
    }, 100);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      if (/"msg":"listening on /.test(output) && readServiceFile()) done();
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    void exited.then(({ code, signal }) => done(new Error(`the service exited (${code ?? signal}) before listening:\n${output}`)));
  });
  try {
    await listening;
  } catch (error) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    throw error;
  }
  const file = readServiceFile()!;
  const operatorToken = env.OPERATOR_TOKEN ?? readFileSync(join(dataDir, 'operator-token'), 'utf8').trim();

  const get = async (path: string, key?: string): Promise<HttpAnswer> => {
    const response = await fetch(`${file.publicUrl}${path}`, { headers: key ? { Authorization: `Bearer ${key}` } : {} });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
  };
  const operator: RunningService['operator'] = async (document, ...[variables]) => {
    const response = await fetch(file.internalUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${operatorToken}` },
      body: JSON.stringify({ query: print(document), variables }),
    });
    const result = (await response.json()) as OperatorResult<ResultOf<typeof document>>;
    if (result.errors?.length) throw new Error(result.errors.map((e) => e.message).join('; '));
    return result.data!;
  };
  return {
    child,
    pid: child.pid!,
    file,
    publicUrl: file.publicUrl,
    internalUrl: file.internalUrl,
    operatorToken,
    output: () => output,
    get,
    operator,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * The set-up of a file whose tests talk to one running service: a store of its own (createCliStore)
 * and the service on it (startService), both made before the tests and stopped and removed after
 * them, with `env` added to the service's environment. What it returns stands in for the two from
 * the start (see standIn).
 */
export function serviceOnOwnStore(env: Record<string, string> = {}): { store: CliStore; service: RunningService } {
  let store: CliStore | undefined;
  let service: RunningService | undefined;
  beforeAll(async () => {
    store = await createCliStore();
    service = await startService({ ...store.env, ...env });
  });
  afterAll(async () => {
    await service?.stop();
    await store?.close();
  });
  return { store: standIn('the store', () => store), service: standIn('the service', () => service) };
}

/**
 * `count` service processes on one store of the file's own (Postgres), each with a data directory
 * of its own, the fixture imported through the first. The store stands in for the one made before
 * all tests; the array is filled then.
 */
export function servicesOnOneStore(count: number, fixture: string): { store: CliStore; services: RunningService[] } {
  let store: CliStore | undefined;
  const services: RunningService[] = [];
  const dirs: string[] = [];
  beforeAll(async () => {
    store = await createCliStore();
    const started = await Promise.all(
      Array.from({ length: count }, () => {
        const dataDir = mkdtempSync(join(tmpdir(), 'aud-rates-mp-'));
        dirs.push(dataDir);
        return startService({ ...store!.env, DATA_DIR: dataDir });
      }),
    );
    services.push(...started);
    await importFixtureVia(services[0]!, fixture);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop()));
    await store?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return { store: standIn('the store', () => store), services };
}

/** Set-up through the internal endpoint: imports a fixture as the CLI would. */
export async function importFixtureVia(service: RunningService, name: string): Promise<void> {
  await importTableVia(service, fixturePath(name), parseRbaFile(readFileSync(fixturePath(name)), name));
}

/**
 * Stores a table through the internal endpoint, as an import of it would: the day it published
 * (null when none) and the webhook deliveries recorded for that publication.
 */
export async function importTableVia(service: RunningService, source: string, table: RbaTable): Promise<{ published: string | null; deliveries: number }> {
  const { importRates } = await service.operator(graphql('mutation($input: ImportRatesInput!) { importRates(input: $input) { published deliveries } }'), {
    input: batchOf(source, table),
  });
  return importRates;
}

/** Set-up through the internal endpoint: a new account and, unless `keys` is 0, its keys. */
export async function createAccountVia(service: RunningService, email: string, plan: Plan, keys = 0): Promise<{ key: string; prefix: string }[]> {
  await service.operator(CREATE_ACCOUNT, { e: email, p: plan });
  const created: { key: string; prefix: string }[] = [];
  for (let i = 0; i < keys; i++) created.push(await createKeyVia(service, email));
  return created;
}

/** Set-up through the internal endpoint: a new account with one key. */
export async function accountWithKeyVia(service: RunningService, email: string, plan: Plan): Promise<{ key: string; prefix: string }> {
  await createAccountVia(service, email, plan);
  return createKeyVia(service, email);
}

export async function createKeyVia(service: RunningService, email: string): Promise<{ key: string; prefix: string }> {
  const data = await service.operator(graphql('mutation($e: EmailAddress!) { createApiKey(email: $e) { key apiKey { prefix } } }'), { e: email });
  return { key: data.createApiKey.key, prefix: data.createApiKey.apiKey.prefix };
}

/**
 * Runs `work` while requesting `path` with `key` every `everyMs`, so the service's key cache holds
 * an entry for the key (refreshed whenever it expires) when `work` ends: a change made by `work`
 * must then be seen at once, not after the cache's lifetime. Returns as soon as `work` does, without
 * waiting for the polling to wind down, to keep the time between the change and the caller's next
 * request (during which the entry could expire and be refreshed anyway) short.
 */
export async function whileKeyInUse<T>(service: RunningService, key: string, work: () => Promise<T>, path = '/latest?symbols=USD', everyMs = 100): Promise<T> {
  let running = true;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    while (running) {
      await service.get(path, key).catch(() => undefined);
      if (!running) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, everyMs);
      });
    }
  })();
  try {
    return await work();
  } finally {
    running = false;
    clearTimeout(timer);
    wake?.();
    loop.catch(() => undefined);
  }
}
