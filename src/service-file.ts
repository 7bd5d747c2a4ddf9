// What a running service keeps in its data directory: `service.json` (internal endpoint address,
// pid) and `operator-token` so the operator CLI can reach it (D33 in docs/decisions.md), and
// `webhook-key`, the key that seals webhook signing secrets when none is configured (all mode
// 0600), and `pgdata/`, the embedded database.
import { randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { z } from 'zod';
import { narrowToOwner } from './private-files.js';

const serviceFileSchema = z.object({ pid: z.number().int().positive(), internalUrl: z.string(), publicUrl: z.string() });
export type ServiceFile = z.infer<typeof serviceFileSchema>;

const serviceFilePath = (dataDir: string) => join(dataDir, 'service.json');

/** service.json as a service wrote it; null when there is none, or what is there is not one (truncated, edited, left by another program). */
function readServiceFile(dataDir: string): ServiceFile | null {
  try {
    return serviceFileSchema.parse(JSON.parse(readFileSync(serviceFilePath(dataDir), 'utf8')));
  } catch {
    return null;
  }
}

const OWNED_ENTRIES = ['pgdata', 'operator-token', 'webhook-key', 'service.json'];

/**
 * Makes what this process writes under DATA_DIR its user's alone (files 0600, directories 0700),
 * through the umask, and narrows what an earlier version left wider. Only the entries the service
 * owns are touched, never other files a user keeps in the directory.
 */
export function keepDataDirPrivate(dataDir: string): void {
  process.umask(0o077);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, lstatSync(dataDir).mode & 0o700);
  for (const name of OWNED_ENTRIES) narrowToOwner(join(dataDir, name));
}

/** The file's content, or 32 random bytes in base64url written to it on first use. */
function loadOrGenerate(dataDir: string, name: string): string {
  const file = join(dataDir, name);
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    mkdirSync(dataDir, { recursive: true });
    const value = randomBytes(32).toString('base64url');
    try {
      writeFileSync(file, `${value}\n`, { mode: 0o600, flag: 'wx' });
      return value;
    } catch {
      return readFileSync(file, 'utf8').trim(); // another process wrote it first
    }
  }
}

/** OPERATOR_TOKEN when configured, else one generated into the data directory on first use. */
export function loadOperatorToken(config: { OPERATOR_TOKEN?: string; DATA_DIR: string }): string {
  return config.OPERATOR_TOKEN ?? loadOrGenerate(config.DATA_DIR, 'operator-token');
}

/** WEBHOOK_KEY (base64url or base64 of 32 bytes) when configured, else one generated into the data directory. */
export function loadWebhookKey(config: { WEBHOOK_KEY?: string; DATA_DIR: string }): Buffer {
  return Buffer.from(config.WEBHOOK_KEY ?? loadOrGenerate(config.DATA_DIR, 'webhook-key'), 'base64url');
}

export function writeServiceFile(dataDir: string, file: ServiceFile): void {
  writeFileSync(serviceFilePath(dataDir), `${JSON.stringify(file)}\n`, { mode: 0o600 });
}

/** Removes service.json if it names `pid`: processes on one Postgres may share a data directory, and the last one started wrote it. */
export function removeServiceFile(dataDir: string, pid: number): void {
  if (readServiceFile(dataDir)?.pid === pid) rmSync(serviceFilePath(dataDir), { force: true });
}

/**
 * The service running on this data directory: the process its service.json names is alive, is not
 * this one, and accepts a connection on the internal port the file records. A pid alone can
 * mislead: once its service is killed, the system may give it to another process (a container
 * restarted after a crash starts the same processes with the same pids), and that process never
 * listens on the recorded port.
 */
export async function findRunningService(dataDir: string): Promise<ServiceFile | null> {
  const file = readServiceFile(dataDir);
  if (file === null || file.pid === process.pid) return null;
  try {
    process.kill(file.pid, 0);
  } catch (error) {
    // EPERM: alive but someone else's; ESRCH: gone, and the file is a leftover.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return null;
  }
  return (await acceptsConnections(file.internalUrl)) ? file : null;
}

/**
 * Whether something accepts a TCP connection at the URL's host and port. Only a refusal (or an
 * address that cannot be read) says no: a connection not answered in time may be a service that is
 * busy or stopped, which still holds the directory.
 */
function acceptsConnections(url: string): Promise<boolean> {
  let host: string;
  let port: number;
  try {
    const parsed = new URL(url);
    host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
    port = Number(parsed.port);
  } catch {
    return Promise.resolve(false);
  }
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: PROBE_TIMEOUT_MS });
    const settle = (accepts: boolean) => {
      socket.destroy();
      resolve(accepts);
    };
    socket.once('connect', () => settle(true));
    socket.once('timeout', () => settle(true));
    socket.once('error', () => settle(false));
  });
}

const PROBE_TIMEOUT_MS = 2_000;
