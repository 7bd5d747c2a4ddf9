// `npm run cluster -- --processes 3`: the reference deployment (deploy/haproxy.cfg) on one machine,
// for a trial: N processes of the service on the PostgreSQL database named by DATABASE_URL, each on
// its own loopback ports, behind HAProxy on 127.0.0.1:8080 (`--port`). The settings that must be
// equal across processes (OPERATOR_TOKEN, WEBHOOK_KEY, PUBLIC_URL) are taken from the environment
// or made once here; each process gets its own PORT, INTERNAL_PORT and DATA_DIR (data-cluster/).
// SIGHUP restarts the processes one after another (a rolling restart); Ctrl-C stops everything.
// docs/operations.md, "Several processes behind HAProxy".
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const HAPROXY_TEMPLATE = join(ROOT, 'deploy', 'haproxy.cfg');

export interface ServerPorts {
  /** the process's PORT */
  public: number;
  /** the process's INTERNAL_PORT, where the balancer asks GET /ready */
  internal: number;
}

/**
 * deploy/haproxy.cfg with another address for the balancer and one `server` line per process, in
 * the reference's own form; everything else as it is.
 */
export function haproxyConfig(template: string, options: { bind: string; servers: readonly ServerPorts[] }): string {
  const lines = template.split('\n');
  const server = /^(\s+)server /;
  const indent = lines.map((line) => server.exec(line)?.[1]).find((found) => found !== undefined);
  const bind = lines.findIndex((line) => /^\s+bind /.test(line));
  if (bind < 0 || indent === undefined) throw new Error('deploy/haproxy.cfg has no bind line or no server lines');
  const out: string[] = [];
  lines.forEach((line, index) => {
    if (index === bind) out.push(`${/^\s+/.exec(line)![0]}bind ${options.bind}`);
    else if (!server.test(line)) out.push(line);
    else if (!server.test(lines[index - 1]!)) {
      options.servers.forEach((ports, i) => out.push(`${indent}server app${i + 1} 127.0.0.1:${ports.public} check port ${ports.internal}`));
    }
  });
  return out.join('\n');
}

export interface Haproxy {
  child: ChildProcess;
  /** what HAProxy logged so far (one line per request: its server, status and timings) */
  output(): string;
  stop(): Promise<void>;
}

/** A loopback port free at this moment (the system's pick), for a process or the balancer to bind. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Whether something accepts connections on host:port. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Starts HAProxy in the foreground on `configFile`; resolves once it accepts connections on `bind` (host:port). */
export async function startHaproxy(configFile: string, bind: string, timeoutMs = 10_000): Promise<Haproxy> {
  const child = spawn('haproxy', ['-db', '-f', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const spawned = new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (error) => reject(new Error(`haproxy could not start (apt-get install haproxy): ${error.message}`)));
  });
  await spawned;
  const [host, port] = [bind.slice(0, bind.lastIndexOf(':')), Number(bind.slice(bind.lastIndexOf(':') + 1))];
  const deadline = Date.now() + timeoutMs;
  while (!(await accepts(host, port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`haproxy did not listen on ${bind}:\n${output}`);
    }
    await sleep(50);
  }
  return {
    child,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Waits until GET /ready on the internal port answers 200. */
export async function waitUntilReady(internalPort: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await fetch(`http://127.0.0.1:${internalPort}/ready`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`the process on internal port ${internalPort} was not ready within ${timeoutMs / 1000} s`);
    await sleep(100);
  }
}

// ---- npm run cluster ------------------------------------------------------------------------

const USAGE = 'usage: DATABASE_URL=postgres://… npm run cluster -- [--processes N] [--port P]';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { processes: { type: 'string', default: '3' }, port: { type: 'string', default: '8080' } } });
  const count = Number(values.processes);
  const port = Number(values.port);
  if (!Number.isInteger(count) || count < 1 || count > 9 || !Number.isInteger(port) || port < 1 || port > 65_000) throw new Error(USAGE);
  if (!process.env.DATABASE_URL) throw new Error(`Several processes share one PostgreSQL database: set DATABASE_URL\n${USAGE}`);
  const dir = resolve(ROOT, 'data-cluster');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const shared = {
    OPERATOR_TOKEN: process.env.OPERATOR_TOKEN ?? loadOrMake(join(dir, 'operator-token')),
    WEBHOOK_KEY: process.env.WEBHOOK_KEY ?? loadOrMake(join(dir, 'webhook-key')),
    PUBLIC_URL: process.env.PUBLIC_URL ?? `http://127.0.0.1:${port}`,
    TRUST_PROXY: process.env.TRUST_PROXY ?? '127.0.0.1',
  };
  const ports = Array.from({ length: count }, (_, i) => ({ public: port + 11 + i, internal: port + 111 + i }));

  const processes: (ChildProcess | null)[] = Array.from({ length: count }, () => null);
  const startProcess = (i: number): ChildProcess => {
    const log = openSync(join(dir, `app${i + 1}.log`), 'a');
    const child = spawn(process.execPath, ['--enable-source-maps', 'dist/main.js'], {
      cwd: ROOT,
      env: {
        ...process.env,
        ...shared,
        NODE_ENV: process.env.NODE_ENV ?? 'production',
        PORT: String(ports[i]!.public),
        INTERNAL_PORT: String(ports[i]!.internal),
        DATA_DIR: join(dir, `app${i + 1}`),
      },
      stdio: ['ignore', log, log],
    });
    processes[i] = child;
    return child;
  };
  const exitOf = (child: ChildProcess) => new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', () => resolve())));

  ports.forEach((_, i) => startProcess(i));
  await Promise.all(ports.map((p) => waitUntilReady(p.internal)));
  const configFile = join(dir, 'haproxy.cfg');
  writeFileSync(configFile, haproxyConfig(readFileSync(HAPROXY_TEMPLATE, 'utf8'), { bind: `127.0.0.1:${port}`, servers: ports }));
  const haproxy = await startHaproxy(configFile, `127.0.0.1:${port}`);
  haproxy.child.stdout!.pipe(process.stdout);

  process.stderr.write(
    [
      `${count} processes behind HAProxy on http://127.0.0.1:${port} (config ${configFile})`,
      ...ports.map(
        (p, i) =>
          `  app${i + 1}: pid ${processes[i]!.pid}, public 127.0.0.1:${p.public}, internal 127.0.0.1:${p.internal}, log ${join(dir, `app${i + 1}.log`)}`,
      ),
      `operator commands: DATA_DIR=${join(dir, 'app1')} OPERATOR_TOKEN=$(cat ${join(dir, 'operator-token')}) npm run --silent cli -- …`,
      `rolling restart: kill -HUP ${process.pid}; stop: Ctrl-C`,
      '',
    ].join('\n'),
  );

  let rolling = false;
  process.on('SIGHUP', () => {
    if (rolling) return;
    rolling = true;
    void (async () => {
      for (let i = 0; i < count; i++) {
        const old = processes[i]!;
        process.stderr.write(`restarting app${i + 1} (pid ${old.pid})\n`);
        old.kill('SIGTERM');
        await exitOf(old);
        startProcess(i);
        await waitUntilReady(ports[i]!.internal);
      }
      process.stderr.write('rolling restart done\n');
      rolling = false;
    })();
  });
  const stop = async () => {
    for (const child of processes) child?.kill('SIGINT');
    await Promise.all(processes.flatMap((child) => (child ? [exitOf(child)] : [])));
    await haproxy.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

/** The secret in `file`, or a new one written there: the trial's processes share it, across runs too. */
function loadOrMake(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    const key = randomBytes(32).toString('base64url');
    writeFileSync(file, `${key}\n`, { mode: 0o600 });
    return key;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
