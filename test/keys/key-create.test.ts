// `cli key create` (a real child process, through the running service): the key is
// `<suburb>_<56 alphanumerics>` (docs/api.md §2.10, D18 in docs/decisions.md), shown once; the
// store keeps only its SHA-256 hash, its prefix and its last four characters.
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suburbNames } from '../../src/domain/api-key.js';
import { createAccountVia, createCliStore, runCli, startService, succeeded, type CliStore, type RunningService } from '../support/cli.js';

const EMAIL = 'keyholder@example.test';

let store: CliStore;
let service: RunningService;
let created: { key: string; prefix: string; id: string };
beforeAll(async () => {
  store = await createCliStore();
  service = await startService(store.env);
  await createAccountVia(service, EMAIL, 'professional');
  created = succeeded(await runCli(['key', 'create', '--email', EMAIL], store.env)) as typeof created;
  // the store is read below; a PGlite directory is one process's at a time
  await service.stop();
}, 90_000);
afterAll(async () => {
  await service?.stop();
  await store?.close();
});

describe('cli key create', () => {
  it('prints {key, prefix, id}: a suburb, an underscore and a 56-character identifier', () => {
    expect(Object.keys(created).sort()).toEqual(['id', 'key', 'prefix', 'restrictions']);
    const { key, prefix, id } = created;
    expect(key).toMatch(/^[a-z]+[0-9]*_[A-Za-z0-9]{56}$/);
    expect(prefix).toBe(key.slice(0, key.indexOf('_')));
    expect(suburbNames()).toContain(prefix);
    expect(key.length).toBe(prefix.length + 1 + 56);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it('stores the SHA-256 hash, the prefix and the last four characters, never the key', async () => {
    const { key, prefix, id } = created;
    const identifier = key.slice(prefix.length + 1);
    const { rows, dump } = await store.withDb(async (db) => {
      const rows = await db
        .selectFrom('api_keys as k')
        .select(['k.id', 'k.prefix', 'k.key_hash', 'k.last_four', 'k.status', sql<string>`row_to_json(k)::text`.as('json')])
        .execute();
      // every row of every table, as text
      const tables = await sql<{ table_name: string }>`
        select table_name from information_schema.tables where table_schema = 'public'`.execute(db);
      let dump = '';
      for (const { table_name } of tables.rows) {
        const result = await sql<{ json: string }>`select row_to_json(t)::text as json from ${sql.table(table_name)} t`.execute(db);
        dump += `${result.rows.map((r) => r.json).join('\n')}\n`;
      }
      return { rows, dump };
    });
    expect(rows).toHaveLength(1);
    const [row] = rows as [(typeof rows)[0]];
    expect(row).toMatchObject({
      id,
      prefix,
      key_hash: createHash('sha256').update(key).digest('hex'),
      last_four: key.slice(-4),
      status: 'active',
    });
    // Neither the key nor any 8 characters of its secret part is in the row, nor anywhere else.
    expect(row.json).not.toContain(key);
    for (let i = 0; i + 8 <= identifier.length; i++) {
      expect(row.json.includes(identifier.slice(i, i + 8)), `characters ${i}..${i + 8} of the identifier are stored`).toBe(false);
    }
    expect(dump).toContain(prefix);
    expect(dump).not.toContain(identifier.slice(0, 12));
    expect(dump).not.toContain(identifier.slice(-12));
  });
});
