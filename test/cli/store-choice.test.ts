// Which store a command uses: beside a running service, the service's (through its internal
// endpoint, saying nothing on stderr); with none, the store it opens itself, named on stderr so
// that stdout stays one JSON object. A data directory without a database is not filled with a new
// one by a mistyped or missing DATA_DIR: only `import` or `--create` makes one.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixturePath, oneJson, runCli, serviceOnOwnStore, succeeded } from '../support/cli.js';

const scratch = mkdtempSync(join(tmpdir(), 'aud-rates-store-choice-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A command that creates and migrates an embedded database: seconds alone, a minute or more on a busy machine. */
const CREATING_MS = 170_000;
const NO_SERVICE = /^No service runs on DATA_DIR (.+): using (.+)$/m;

describe('with no service running', () => {
  it('refuses a DATA_DIR that holds no database and creates nothing there', { timeout: 60_000 }, async () => {
    const dataDir = join(scratch, 'missing');
    const result = await runCli(['account', 'create', '--email', 'nobody@example.test', '--plan', 'free'], { DATA_DIR: dataDir, DATABASE_URL: '' });
    expect(result.code).toBe(1);
    expect(oneJson(result).error).toBe(
      `No database in DATA_DIR ${dataDir} (${dataDir}) and no service running on it: set DATA_DIR to the service's data directory (or DATABASE_URL to its server), or add --create to make a new database there`,
    );
    expect(existsSync(dataDir)).toBe(false);
  });

  it('makes a new database with --create and names it on stderr', { timeout: 180_000 }, async () => {
    const dataDir = join(scratch, 'created');
    const result = await runCli(
      ['account', 'create', '--email', 'new@example.test', '--plan', 'starter', '--create'],
      { DATA_DIR: dataDir, DATABASE_URL: '' },
      CREATING_MS,
    );
    expect(succeeded(result)).toMatchObject({ email: 'new@example.test', plan: 'starter' });
    expect(NO_SERVICE.exec(result.stderr)?.slice(1)).toEqual([dataDir, `the embedded database in ${join(dataDir, 'pgdata')}`]);
    // the database is there now: the next command needs no --create
    const again = await runCli(['account', 'plan', '--email', 'new@example.test', '--plan', 'business'], { DATA_DIR: dataDir, DATABASE_URL: '' });
    expect(succeeded(again)).toMatchObject({ plan: 'business' });
    expect(again.stderr).toMatch(NO_SERVICE);
  });

  it('lets import fill a new database, naming it, a relative DATA_DIR by its absolute path', { timeout: 180_000 }, async () => {
    const relative = join('test-artifacts', `store-choice-${process.pid}`);
    try {
      const result = await runCli(['import', fixturePath('f11.1-data.csv')], { DATA_DIR: relative, DATABASE_URL: '' }, CREATING_MS);
      expect(succeeded(result).inserted).toBeGreaterThan(0);
      expect(NO_SERVICE.exec(result.stderr)?.slice(1)).toEqual([relative, `the embedded database in ${resolve(relative, 'pgdata')}`]);
    } finally {
      rmSync(relative, { recursive: true, force: true });
    }
  });

  it.runIf(process.env.DATABASE_URL)('names a Postgres server by database and host, never its password', { timeout: 60_000 }, async () => {
    const url = new URL(process.env.DATABASE_URL!);
    url.password = 'not-shown';
    const result = await runCli(['account', 'suspend', '--email', 'nobody@example.test'], { DATA_DIR: join(scratch, 'pg'), DATABASE_URL: url.href });
    expect(result.stderr).toContain(`using the PostgreSQL database ${url.pathname.slice(1)} on ${url.host}`);
    expect(result.stderr).not.toContain('not-shown');
  });
});

describe('beside a running service', () => {
  const { store } = serviceOnOwnStore();

  it('goes through the service and says nothing on stderr', { timeout: 60_000 }, async () => {
    const result = await runCli(['account', 'create', '--email', 'served@example.test', '--plan', 'free'], store.env);
    expect(succeeded(result)).toMatchObject({ email: 'served@example.test' });
    expect(result.stderr).toBe('');
  });
});

it('prints every command’s usage for --help, on stdout, and exits 0 without opening a store', { timeout: 60_000 }, async () => {
  const dataDir = join(scratch, 'help');
  const result = await runCli(['--help'], { DATA_DIR: dataDir, DATABASE_URL: '' });
  expect(result.code).toBe(0);
  expect(result.stdout.split('\n').filter((line) => line.startsWith('  '))).toEqual([
    '  import <path-or-url>',
    '  sync [path-or-url]',
    '  account create --email E --plan free|starter|professional|business|enterprise',
    '  account plan --email E --plan P',
    '  account suspend --email E',
    '  account unsuspend --email E',
    '  key create --email E [--allowed-ips CIDR,CIDR] [--allowed-endpoints latest,historical,...] [--expires-on YYYY-MM-DD] [--monthly-cap N]',
    '  key restrict --prefix P [--allowed-ips CIDR,CIDR] [--allowed-endpoints latest,historical,...] [--expires-on YYYY-MM-DD] [--monthly-cap N] [--clear]',
    '  key revoke --prefix P',
    '  query <file.graphql> [--variables JSON]',
    '  backup <file>',
    '  restore <file>',
  ]);
  expect(existsSync(dataDir)).toBe(false);
});
