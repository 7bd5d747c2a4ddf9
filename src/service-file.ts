// What a running service leaves in its data directory so the operator CLI can reach it (D33):
// `service.json` (internal endpoint address, pid) and `operator-token` (mode 0600).
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ServiceFile {
  pid: number;
  internalUrl: string;
  publicUrl: string;
}

const serviceFilePath = (dataDir: string) => join(dataDir, 'service.json');

/** OPERATOR_TOKEN when configured, else one generated into the data directory on first use. */
export function loadOperatorToken(config: { OPERATOR_TOKEN?: string; DATA_DIR: string }): string {
  if (config.OPERATOR_TOKEN) return config.OPERATOR_TOKEN;
  const file = join(config.DATA_DIR, 'operator-token');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    mkdirSync(config.DATA_DIR, { recursive: true });
    const token = randomBytes(32).toString('base64url');
    writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
    return token;
  }
}

export function writeServiceFile(dataDir: string, file: ServiceFile): void {
  writeFileSync(serviceFilePath(dataDir), `${JSON.stringify(file)}\n`, { mode: 0o600 });
}

export function removeServiceFile(dataDir: string): void {
  rmSync(serviceFilePath(dataDir), { force: true });
}

/** The service running on this data directory, if its process is alive. */
export function findRunningService(dataDir: string): ServiceFile | null {
  let file: ServiceFile;
  try {
    file = JSON.parse(readFileSync(serviceFilePath(dataDir), 'utf8')) as ServiceFile;
  } catch {
    return null;
  }
  try {
    process.kill(file.pid, 0);
    return file;
  } catch (error) {
    // EPERM: alive but someone else's; ESRCH: gone, and the file is a leftover.
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? file : null;
  }
}
