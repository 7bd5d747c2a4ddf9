// Everything the service and the command line write under DATA_DIR is their user's alone: files
// 0600, directories 0700, the embedded database's own files included (PGlite creates those with
// Node's default modes, so only the process's umask narrows them). Entries an earlier version left
// wider are narrowed at start-up; a file the user keeps there is left as it is.
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixturePath, runCli, startService, succeeded } from '../support/cli.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function freshDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'aud-rates-modes-'));
  dirs.push(dir);
  return dir;
}

/** Paths under `dir` whose mode lets anyone but the owner read, write or enter them. */
function openToOthers(dir: string, skip: ReadonlySet<string> = new Set()): string[] {
  const found: string[] = [];
  const walk = (path: string) => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return;
    if ((stat.mode & 0o077) !== 0) found.push(`${path} ${(stat.mode & 0o777).toString(8)}`);
    if (stat.isDirectory()) for (const name of readdirSync(path)) if (!skip.has(name)) walk(join(path, name));
  };
  walk(dir);
  return found;
}

describe('DATA_DIR modes', () => {
  it('the service creates its database, token and key files 0600 in 0700 directories', { timeout: 120_000 }, async () => {
    const dataDir = freshDataDir();
    const service = await startService({ DATA_DIR: dataDir, DATABASE_URL: '' });
    try {
      expect(readdirSync(join(dataDir, 'pgdata')).length).toBeGreaterThan(5);
      expect(openToOthers(dataDir)).toEqual([]);
      expect(lstatSync(join(dataDir, 'operator-token')).mode & 0o777).toBe(0o600);
      expect(lstatSync(join(dataDir, 'pgdata')).mode & 0o777).toBe(0o700);
    } finally {
      await service.stop();
    }
  });

  it('narrows what an earlier version left wide, and leaves the user’s own files alone', { timeout: 120_000 }, async () => {
    const dataDir = freshDataDir();
    chmodSync(dataDir, 0o755);
    mkdirSync(join(dataDir, 'pgdata'), { mode: 0o777 });
    chmodSync(join(dataDir, 'pgdata'), 0o777);
    writeFileSync(join(dataDir, 'webhook-key'), `${Buffer.alloc(32, 1).toString('base64url')}\n`, { mode: 0o666 });
    chmodSync(join(dataDir, 'webhook-key'), 0o666);
    writeFileSync(join(dataDir, 'notes.txt'), 'mine\n');
    chmodSync(join(dataDir, 'notes.txt'), 0o644);
    // The command line opens the embedded database itself when no service runs.
    succeeded(await runCli(['import', fixturePath('f11.1-data.csv')], { DATA_DIR: dataDir, DATABASE_URL: '' }));
    expect(openToOthers(dataDir, new Set(['notes.txt']))).toEqual([]);
    expect(lstatSync(join(dataDir, 'notes.txt')).mode & 0o777).toBe(0o644);
  });
});
