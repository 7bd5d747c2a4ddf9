// D33 (docs/decisions.md): while the service runs on an embedded (PGlite) data directory, operator
// commands go through its internal endpoint (found in DATA_DIR/service.json with
// DATA_DIR/operator-token) and take effect in the running service at once; the service stops
// cleanly on SIGTERM; with no service running, the CLI opens the database itself.
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCliStore,
  accountWithKeyVia,
  fixturePath,
  oneJson,
  runCli,
  startService,
  succeeded,
  whileKeyInUse,
  type CliResult,
  type CliStore,
  type RunningService,
} from '../support/cli.js';

const EMAIL = 'operator-d33@example.test';
const OTHER = 'suspended-d33@example.test';

let store: CliStore;
let service: RunningService;
let spare: CliStore;
/** A refusal run on a second store that no service holds, started at once, checked at the end. */
let directRefusal: Promise<CliResult>;
beforeAll(async () => {
  [store, spare] = await Promise.all([createCliStore({ embedded: true }), createCliStore({ embedded: true })]);
  directRefusal = runCli(['key', 'create', '--email', 'nobody@example.test', '--create'], spare.env);
  service = await startService(store.env);
}, 90_000);
afterAll(async () => {
  await directRefusal?.catch(() => undefined);
  await service?.stop('SIGKILL');
  await Promise.all([store?.close(), spare?.close()]);
});

const cli = (...args: string[]) => runCli(args, store.env);

describe('operator CLI while the service runs (D33)', () => {
  it('writes the bound addresses of PORT=0 and INTERNAL_PORT=0 into service.json', () => {
    expect(service.file).toEqual({
      pid: service.pid,
      publicUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:[1-9][0-9]*$/),
      internalUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:[1-9][0-9]*\/graphql$/),
    });
    expect(service.publicUrl).not.toBe(service.internalUrl.replace(/\/graphql$/, ''));
    expect(statSync(join(store.dataDir, 'operator-token')).mode & 0o777).toBe(0o600);
    expect(service.operatorToken.length).toBeGreaterThanOrEqual(24);
  });

  it('refuses to start a second service on the same data directory', { timeout: 60_000 }, async () => {
    await expect(startService(store.env)).rejects.toThrow(`exited (2) before listening:\nA service (pid ${service.pid}) already uses DATA_DIR`);
  });

  it('imports and creates an account through the service; the running service serves the rates at once', { timeout: 60_000 }, async () => {
    // No rates yet: the service cannot serve any (D22).
    expect((await service.get('/status')).status).toBe(503);
    const [imported, account] = await Promise.all([
      cli('import', fixturePath('f11.1-data.csv')),
      cli('account', 'create', '--email', EMAIL, '--plan', 'professional'),
    ]);
    expect(succeeded(imported)).toEqual({ days: 8, inserted: 8, updated: 0, firstDate: '2023-01-03', lastDate: '2026-05-11' });
    expect(succeeded(account)).toEqual({ id: expect.any(String), email: EMAIL, plan: 'professional' });
    const status = await service.get('/status');
    expect(status.status).toBe(200);
    // due: the first publication slot after the newest stored day, 2026-05-11 (D22)
    expect(status.body.next_update_expected).toMatch(/^2026-05-12T/);
  });
});

// Two accounts, so that revoking and suspending run side by side.
describe.concurrent('operator CLI while the service runs (D33): changes apply at once', () => {
  it('key create works at once; after key revoke returns, the key is refused with 401 invalid_api_key', { timeout: 60_000 }, async () => {
    const { key, prefix } = succeeded(await cli('key', 'create', '--email', EMAIL)) as { key: string; prefix: string };
    const latest = await service.get('/latest?symbols=USD', key);
    expect(latest.status).toBe(200);
    expect(latest.body).toMatchObject({ success: true, date: '2026-05-11', rates: { USD: 0.7013 } });

    // The key is in use while it is revoked, so the service has it cached: the revoke must clear it.
    const revoked = await whileKeyInUse(service, key, () => cli('key', 'revoke', '--prefix', prefix));
    expect(succeeded(revoked)).toMatchObject({ prefix, status: 'revoked' });
    const answer = await service.get('/latest?symbols=USD', key);
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ success: false, error: { code: 401, type: 'invalid_api_key' } });
  });

  it('account suspend answers 401 account_suspended at once; unsuspend restores', { timeout: 60_000 }, async () => {
    const { key } = await accountWithKeyVia(service, OTHER, 'professional');
    expect((await service.get('/latest?symbols=USD', key)).status).toBe(200);

    const suspended = await whileKeyInUse(service, key, () => cli('account', 'suspend', '--email', OTHER));
    expect(succeeded(suspended)).toMatchObject({ email: OTHER, status: 'suspended' });
    const refused = await service.get('/latest?symbols=USD', key);
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ success: false, error: { code: 401, type: 'account_suspended' } });

    const restored = await whileKeyInUse(service, key, () => cli('account', 'unsuspend', '--email', OTHER));
    expect(succeeded(restored)).toMatchObject({ email: OTHER, status: 'active' });
    expect((await service.get('/latest?symbols=USD', key)).status).toBe(200);
  });
});

describe('after the service', () => {
  it('stops cleanly on SIGTERM and removes service.json', { timeout: 30_000 }, async () => {
    expect(existsSync(join(store.dataDir, 'service.json'))).toBe(true);
    expect(await service.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    expect(existsSync(join(store.dataDir, 'service.json'))).toBe(false);
    expect(existsSync(join(store.dataDir, 'operator-token'))).toBe(true);
  });

  it('with no service running (a stale service.json included), the CLI opens the database itself', { timeout: 60_000 }, async () => {
    // What a killed service leaves behind: a service.json naming a process that is gone.
    writeFileSync(join(store.dataDir, 'service.json'), JSON.stringify(service.file));
    const planned = succeeded(await cli('account', 'plan', '--email', EMAIL, '--plan', 'business'));
    expect(planned).toEqual({ id: expect.any(String), email: EMAIL, plan: 'business' });
    const { accounts, keys } = await store.withDb(async (db) => ({
      accounts: await db.selectFrom('accounts').select(['email', 'plan', 'status']).orderBy('email').execute(),
      keys: await db
        .selectFrom('api_keys')
        .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
        .select(['accounts.email', 'api_keys.status'])
        .orderBy('accounts.email')
        .execute(),
    }));
    expect(accounts).toEqual([
      { email: EMAIL, plan: 'business', status: 'active' },
      { email: OTHER, plan: 'professional', status: 'active' },
    ]);
    expect(keys).toEqual([
      { email: EMAIL, status: 'revoked' },
      { email: OTHER, status: 'active' },
    ]);
  });

  it(
    'a service.json naming a live process that is no service (its pid given again): the CLI opens the database, a service starts',
    { timeout: 60_000 },
    async () => {
      // This test's own process is alive and listens on no internal port; nothing listens on port 1.
      writeFileSync(join(store.dataDir, 'service.json'), JSON.stringify({ ...service.file, pid: process.pid, internalUrl: 'http://127.0.0.1:1/graphql' }));
      const listed = await cli('account', 'plan', '--email', EMAIL, '--plan', 'professional');
      expect(succeeded(listed)).toEqual({ id: expect.any(String), email: EMAIL, plan: 'professional' });
      expect(listed.stderr).toContain(`No service runs on DATA_DIR ${store.dataDir}`);
      const restarted = await startService(store.env);
      try {
        expect(restarted.file.pid).toBe(restarted.pid);
        expect((await restarted.get('/status')).status).toBe(200);
      } finally {
        expect(await restarted.stop('SIGTERM')).toEqual({ code: 0, signal: null });
      }
    },
  );

  it('a service.json that is not one (null, cut short, another shape): the CLI opens the database itself', { timeout: 60_000 }, async () => {
    for (const content of ['null', '{"pid":', '[]', '{"pid":"1","internalUrl":7}']) {
      writeFileSync(join(store.dataDir, 'service.json'), content);
      const planned = await cli('account', 'plan', '--email', EMAIL, '--plan', 'professional');
      expect(succeeded(planned), content).toEqual({ id: expect.any(String), email: EMAIL, plan: 'professional' });
      expect(planned.stderr, content).toContain(`No service runs on DATA_DIR ${store.dataDir}`);
    }
  });

  it('refuses an unknown e-mail on a database it opened itself, with one error object', { timeout: 60_000 }, async () => {
    const result = await directRefusal;
    expect(oneJson(result)).toEqual({ error: 'No account with e-mail nobody@example.test' });
    expect(result.code).toBe(1);
    expect(existsSync(join(spare.dataDir, 'pgdata'))).toBe(true);
  });
});
