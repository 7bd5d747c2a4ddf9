// The embedded database is open in one process at a time, from the moment it is opened: two
// services started at the same instant on one DATA_DIR (before either has written service.json)
// do not both open it, an operator command does not open it beside a starting service, and the
// lock of a killed service is taken over by the next start.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountWithKeyVia, createCliStore, oneJson, runCli, startService, type CliStore, type RunningService } from '../support/cli.js';

const EMAIL = 'lock@example.test';

let store: CliStore;
const services: RunningService[] = [];
beforeAll(async () => {
  store = await createCliStore({ embedded: true });
}, 60_000);
afterAll(async () => {
  for (const service of services) await service.stop('SIGKILL');
  await store?.close();
});

describe('the embedded database is open in one process at a time', () => {
  it('two services started at once on one DATA_DIR: one serves, the other says it waits, then stops', { timeout: 120_000 }, async () => {
    const started = await Promise.allSettled([startService(store.env, 90_000), startService(store.env, 90_000)]);
    const serving = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    services.push(...serving);
    const refused = started.flatMap((s) => (s.status === 'rejected' ? [String(s.reason)] : []));
    expect(serving).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatch(
      /exited \(1\) before listening:\nThe embedded database in \S+ is locked by another process: waiting up to 30 s, in case that process was killed\nThe embedded database in \S+ is open in another process \(a service starting or running, or an operator command\)/,
    );
    const { key } = await accountWithKeyVia(serving[0]!, EMAIL, 'professional');
    expect((await serving[0]!.get('/usage', key)).status).toBe(200);
  });

  it('a command finds the database held by a process that has no service.json yet: it waits, then refuses with one error', { timeout: 120_000 }, async () => {
    const [serving] = services;
    // What a service that is still starting looks like to a command: the database held, no service.json.
    rmSync(join(store.dataDir, 'service.json'));
    const result = await runCli(['account', 'plan', '--email', EMAIL, '--plan', 'business'], store.env, 90_000);
    expect(result.code).toBe(1);
    expect(oneJson(result).error).toMatch(/^The embedded database in \S+ is open in another process/);
    expect(result.stderr).toMatch(/is locked by another process: waiting up to 30 s, in case that process was killed/);
    expect((await serving!.get('/status')).status).not.toBe(500);
  });

  it('a killed service leaves its lock behind; the next start takes it over and serves the same data', { timeout: 120_000 }, async () => {
    const killed = services.shift()!;
    expect(await killed.stop('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
    const restarted = await startService(store.env, 90_000);
    services.push(restarted);
    const { key } = await accountWithKeyVia(restarted, 'after-kill@example.test', 'professional');
    expect((await restarted.get('/usage', key)).status).toBe(200);
    // the account made before the kill is there, through the new service
    const planned = await runCli(['account', 'plan', '--email', EMAIL, '--plan', 'business'], store.env);
    expect(oneJson(planned)).toEqual({ id: expect.any(String), email: EMAIL, plan: 'business' });
  });

  it('a service whose lock is taken away stops at once, in one line, rather than share the database', { timeout: 30_000 }, async () => {
    const [serving] = services;
    rmSync(join(store.dataDir, 'pgdata.lock'), { recursive: true });
    expect(await serving!.exited).toEqual({ code: 1, signal: null });
    expect(serving!.output()).toMatch(/The lock on \S+ was lost \(.*\): stopping before the database is written by two processes/);
  });
});
