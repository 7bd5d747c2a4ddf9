// Operator command arguments that are not text (bytes that are not UTF-8, which Node hands the
// program as U+FFFD) are a usage mistake: exit 2 with `{"error"}` and nothing stored. Arguments
// outside ASCII reach the store exactly, whether the command opens the database itself or goes
// through the running service's internal endpoint. The CLI runs as a real child process, its
// arguments written byte for byte.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliStore, fixturePath, oneJson, runCli, startService, succeeded, type CliStore } from '../support/cli.js';

const EXACT = 'Zürich 東京 🚀';

let store: CliStore;
let files: string;
beforeAll(async () => {
  store = await createCliStore();
  files = mkdtempSync(join(tmpdir(), 'aud-rates-text-'));
});
afterAll(async () => {
  await store?.close();
  rmSync(files, { recursive: true, force: true });
});

const sources = () => store.withDb((db) => db.selectFrom('publications').select('source').orderBy('id').execute());

describe('arguments that are not UTF-8', () => {
  it.each<[string, (string | Uint8Array)[], number]>([
    ['an e-mail with C3 28', ['account', 'create', '--email', Buffer.from([0x61, 0xc3, 0x28, 0x40, 0x78, 0x2e, 0x74, 0x65, 0x73, 0x74]), '--plan', 'free'], 4],
    ['a UTF-8-encoded surrogate (ED A0 80) in a prefix', ['key', 'revoke', '--prefix', Buffer.from([0x62, 0xed, 0xa0, 0x80])], 4],
    ['a path with FF', ['import', Buffer.concat([Buffer.from(`${files}/rates-`), Buffer.from([0xff]), Buffer.from('.csv')])], 2],
    ['U+FFFD itself, which Node gives no way to tell from replaced bytes', ['account', 'create', '--email', 'a\uFFFD@x.test', '--plan', 'free'], 4],
  ])('%s: exit 2, {"error"} naming the argument, nothing stored', { timeout: 60_000 }, async (_what, args, position) => {
    const before = await store.counts();
    const result = await runCli(args, store.env);
    expect(result.code, result.stdout + result.stderr).toBe(2);
    const output = oneJson(result);
    expect(Object.keys(output)).toEqual(['error']);
    expect(output.error).toMatch(new RegExp(`^argument ${position} \\('.*\uFFFD.*'\\) is not valid UTF-8\\nusage: `));
    expect(await store.counts()).toEqual(before);
  });
});

describe('arguments outside ASCII', () => {
  it(`a file named "${EXACT}.csv", imported with no service running: its path is stored exactly`, { timeout: 60_000 }, async () => {
    const path = join(files, `${EXACT}.csv`);
    copyFileSync(fixturePath('f11.1-data.csv'), path);
    succeeded(await runCli(['import', path], store.env));
    expect((await sources()).at(-1)).toEqual({ source: path });
  });

  it("through the running service: an unknown prefix is named exactly, and a synced file's path is stored exactly", { timeout: 90_000 }, async () => {
    const service = await startService(store.env);
    try {
      const revoke = await runCli(['key', 'revoke', '--prefix', 'zürich'], store.env);
      expect(revoke.code).toBe(1);
      expect(oneJson(revoke)).toEqual({ error: 'No active API key with prefix zürich' });

      const path = join(files, `${EXACT} feed.xml`);
      copyFileSync(fixturePath('rss-cb-exchange-rates-2026-05-12.xml'), path);
      expect(succeeded(await runCli(['sync', path], store.env))).toMatchObject({ published: '2026-05-12' });
    } finally {
      await service.stop();
    }
    expect((await sources()).at(-1)).toEqual({ source: join(files, `${EXACT} feed.xml`) });
  });
});
