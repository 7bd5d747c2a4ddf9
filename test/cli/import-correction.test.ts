// A corrected value for a day already stored: `cli import` of the corrected file (a real child
// process, through the running service) reports one updated day, the service serves the new value
// at once, and rate_corrections records the previous and the new value.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountWithKeyVia, fixturePath, importFixtureVia, runCli, serviceOnOwnStore, succeeded } from '../support/cli.js';

const { store, service } = serviceOnOwnStore();
let dir: string;
let key: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'aud-rates-files-'));
  await importFixtureVia(service, 'f11.1-data.csv');
  ({ key } = await accountWithKeyVia(service, 'corrections@example.test', 'professional'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('cli import of a corrected value', () => {
  let corrected: string;

  it('reports one updated day and the service serves the new value at once', { timeout: 30_000 }, async () => {
    const before = await service.get('/2026-05-11', key);
    expect(before.status).toBe(200);
    expect(before.body.rates).toMatchObject({ USD: 0.7013, JPY: 109.02 });
    expect((await service.get('/latest?symbols=USD', key)).body.rates).toEqual({ USD: 0.7013 });

    // The same download with USD on 11-May-2026 revised from 0.7013 to 0.7021.
    const text = readFileSync(fixturePath('f11.1-data.csv'), 'utf8');
    const revised = text.replace('\n11-May-2026,0.7013,', '\n11-May-2026,0.7021,');
    expect(revised).not.toBe(text);
    corrected = join(dir, 'f11.1-data-corrected.csv');
    writeFileSync(corrected, revised);

    const summary = succeeded(await runCli(['import', corrected], store.env));
    expect(summary).toEqual({ days: 8, inserted: 0, updated: 1, firstDate: '2023-01-03', lastDate: '2026-05-11' });

    const after = await service.get('/2026-05-11', key);
    expect(after.status).toBe(200);
    expect(after.body.rates).toMatchObject({ USD: 0.7021, JPY: 109.02 });
    expect((await service.get('/latest?symbols=USD', key)).body.rates).toEqual({ USD: 0.7021 });
  });

  it('records the previous and the new value in rate_corrections', { timeout: 30_000 }, async () => {
    expect((await service.stop()).code).toBe(0);
    const { corrections, usd, publications } = await store.withDb(async (db) => ({
      corrections: await db
        .selectFrom('rate_corrections')
        .select(['date', 'code', sql<string>`previous_value::text`.as('previous_value'), sql<string>`value::text`.as('value'), 'publication_id'])
        .execute(),
      usd: await db
        .selectFrom('rates')
        .select([sql<string>`value::text`.as('value'), 'publication_id'])
        .where('date', '=', '2026-05-11')
        .where('code', '=', 'USD')
        .executeTakeFirstOrThrow(),
      publications: await db.selectFrom('publications').selectAll().orderBy('id').execute(),
    }));
    expect(publications).toHaveLength(2);
    const [first, second] = publications as [(typeof publications)[0], (typeof publications)[0]];
    expect(second).toMatchObject({ source: corrected, format: 'csv', inserted: 0, updated: 1, days: 8 });
    expect(corrections).toEqual([{ date: '2026-05-11', code: 'USD', previous_value: '0.7013', value: '0.7021', publication_id: second.id }]);
    expect(usd).toEqual({ value: '0.7021', publication_id: second.id });
    expect(first.id).not.toBe(second.id);
  });
});
