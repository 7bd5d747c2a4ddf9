// Migration 0009 fills its roll-ups from what an upgraded database already holds: keyed requests
// per account and Sydney day, and per account and year, summed from `usage_daily`; down drops them.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { emptyDatabaseForFile } from '../support/db.js';

const database = emptyDatabaseForFile();

const rows = async (statement: ReturnType<typeof sql>) => (await statement.execute(database.db)).rows;

describe('migration 0009_account_usage_rollups', () => {
  const accounts: string[] = [];

  it('sums the stored daily rows per account and day, and per account and year', async () => {
    await database.migrateTo('0008_conversions_keyless_polls');
    for (const email of ['a@example.test', 'b@example.test']) {
      const { id } = await database.db.insertInto('accounts').values({ email, plan: 'business' }).returning('id').executeTakeFirstOrThrow();
      accounts.push(id);
    }
    const keys: string[] = [];
    for (const [i, account] of [accounts[0], accounts[0], accounts[1]].entries()) {
      const { id } = await database.db
        .insertInto('api_keys')
        .values({ account_id: account, prefix: `key${i}`, key_hash: `h${i}`, last_four: '0000' })
        .returning('id')
        .executeTakeFirstOrThrow();
      keys.push(id);
    }
    const usage = [
      // day, key, endpoint, status, requests: two keys of one account on a year's last day, and a month's end
      ['2025-12-31', 0, 'Latest', 200, 3],
      ['2025-12-31', 1, 'Latest', 200, 4],
      ['2025-12-31', 0, 'Convert', 429, 1],
      ['2026-01-01', 0, 'Latest', 200, 5],
      ['2026-01-31', 2, 'Latest', 200, 6],
      ['2026-02-01', 2, 'Latest', 304, 7],
    ] as const;
    for (const [day, key, endpoint, status, requests] of usage) {
      await database.db
        .insertInto('usage_daily')
        .values({ day, account_id: key === 2 ? accounts[1] : accounts[0], key_id: keys[key], endpoint, status, requests })
        .execute();
    }

    await database.migrateTo('0009_account_usage_rollups');
    expect(await rows(sql`SELECT day::text, account_id, requests FROM usage_account_daily ORDER BY 1, 3`)).toEqual([
      { day: '2025-12-31', account_id: accounts[0], requests: 8 },
      { day: '2026-01-01', account_id: accounts[0], requests: 5 },
      { day: '2026-01-31', account_id: accounts[1], requests: 6 },
      { day: '2026-02-01', account_id: accounts[1], requests: 7 },
    ]);
    expect(await rows(sql`SELECT year::text, account_id, requests FROM usage_account_yearly ORDER BY 1, 3`)).toEqual([
      { year: '2025-01-01', account_id: accounts[0], requests: 8 },
      { year: '2026-01-01', account_id: accounts[0], requests: 5 },
      { year: '2026-01-01', account_id: accounts[1], requests: 13 },
    ]);
  });

  it('down drops the roll-ups and leaves the daily rows', async () => {
    await database.migrateTo('0008_conversions_keyless_polls');
    const { rows: tables } = await sql<{ table_name: string }>`
      select table_name from information_schema.tables
      where table_schema = 'public' and table_name in ('usage_account_daily', 'usage_account_yearly')`.execute(database.db);
    expect(tables).toEqual([]);
    expect(await rows(sql`SELECT count(*)::int AS n FROM usage_daily`)).toEqual([{ n: 6 }]);
  });
});
