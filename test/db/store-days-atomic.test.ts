// storeDays stores a batch in one transaction: a failure anywhere in it (here a value the table's
// check refuses, on the batch's last day) leaves no rate, no correction and no publication behind.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeDays, type ImportInput } from '../../src/db/rates.js';
import { countRows } from '../support/cli.js';
import { openTestDatabase } from '../support/db.js';

let database: Awaited<ReturnType<typeof openTestDatabase>>;
beforeAll(async () => {
  database = await openTestDatabase();
}, 60_000);
afterAll(() => database?.close());

const batch = (days: ImportInput['days']): ImportInput => ({ storedAt: new Date(), source: 'test', format: 'csv', publicationDate: null, days });

describe('storeDays', () => {
  it('stores nothing from a batch that fails part-way', async () => {
    const { db } = database;
    await db.transaction().execute((trx) => storeDays(trx, batch([{ date: '2024-01-02', rates: { USD: '0.6781', JPY: '96.10' } }])));
    const before = await countRows(db);
    expect(before).toMatchObject({ rates: 2, publications: 1, rate_corrections: 0 });

    const failing = batch([
      { date: '2024-01-02', rates: { USD: '0.6790', JPY: '96.10' } }, // a correction
      { date: '2024-01-03', rates: { USD: '0.6750' } }, // a new day
      { date: '2024-01-04', rates: { USD: '-1' } }, // refused by the table's check (value >= 0)
    ]);
    await expect(db.transaction().execute((trx) => storeDays(trx, failing))).rejects.toThrow();

    expect(await countRows(db)).toEqual(before);
    const usd = await db
      .selectFrom('rates')
      .select(sql<string>`value::text`.as('value'))
      .where('date', '=', '2024-01-02')
      .where('code', '=', 'USD')
      .executeTakeFirstOrThrow();
    expect(usd.value).toBe('0.6781');
  });

  it('records a correction together with the new value, in the same publication', async () => {
    const { db } = database;
    const summary = await db.transaction().execute((trx) => storeDays(trx, batch([{ date: '2024-01-02', rates: { USD: '0.6790', JPY: '96.1' } }])));
    // JPY 96.1 equals the stored 96.10: not a correction
    expect(summary).toMatchObject({ days: 1, inserted: 0, updated: 1 });
    const corrections = await db
      .selectFrom('rate_corrections')
      .select(['code', sql<string>`previous_value::text`.as('previous'), sql<string>`value::text`.as('value'), 'publication_id'])
      .execute();
    expect(corrections).toEqual([{ code: 'USD', previous: '0.6781', value: '0.6790', publication_id: summary.publicationId }]);
  });
});
