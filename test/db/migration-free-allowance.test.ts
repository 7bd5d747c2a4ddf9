// Migration 0004 (D35 in docs/decisions.md): Free's allowance moves into a count of its own. What
// each account had used of it is kept, paid periods keep their counts, and `down` puts Free's count
// back.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { emptyDatabaseForFile } from '../support/db.js';

const database = emptyDatabaseForFile();

const ACCOUNTS = [
  // email, plan, quota_period, quota_used
  ['free@example.test', 'free', '1970-01-01', 120],
  ['downgraded@example.test', 'free', '2026-10-20', 500],
  ['paid@example.test', 'professional', '2026-11-01', 40],
  ['upgraded-unused@example.test', 'starter', '1970-01-01', 7],
] as const;

async function rows(): Promise<Record<string, unknown>[]> {
  const { rows } = await sql<Record<string, unknown>>`
    select email, quota_period::text as period, quota_used from accounts order by email`.execute(database.db);
  return rows;
}

describe('migration 0004_free_allowance', () => {
  it('moves what Free accounts used into free_used, leaving paid periods as they were', async () => {
    await database.migrateTo('0003_webhooks');
    for (const [email, plan, quota_period, quota_used] of ACCOUNTS) {
      await database.db.insertInto('accounts').values({ email, plan, quota_period, quota_used }).execute();
    }
    await database.migrateTo('0004_free_allowance');
    const { rows: after } = await sql<{ email: string; period: string; quota_used: number; free_used: number }>`
      select email, quota_period::text as period, quota_used, free_used from accounts order by email`.execute(database.db);
    expect(after).toEqual([
      { email: 'downgraded@example.test', period: '1970-01-01', quota_used: 0, free_used: 500 },
      { email: 'free@example.test', period: '1970-01-01', quota_used: 0, free_used: 120 },
      { email: 'paid@example.test', period: '2026-11-01', quota_used: 40, free_used: 0 },
      { email: 'upgraded-unused@example.test', period: '1970-01-01', quota_used: 0, free_used: 7 },
    ]);
  });

  // A paid account's unused Free count has no place before 0004: down drops it.
  it("down puts Free accounts' count back in the lifetime period and drops the column", async () => {
    await database.migrateTo('0003_webhooks');
    expect(await rows()).toEqual([
      { email: 'downgraded@example.test', period: '1970-01-01', quota_used: 500 },
      { email: 'free@example.test', period: '1970-01-01', quota_used: 120 },
      { email: 'paid@example.test', period: '2026-11-01', quota_used: 40 },
      { email: 'upgraded-unused@example.test', period: '1970-01-01', quota_used: 0 },
    ]);
    const { rows: columns } = await sql<{ n: number }>`
      select count(*)::int as n from information_schema.columns where table_name = 'accounts' and column_name = 'free_used'`.execute(database.db);
    expect(columns[0]!.n).toBe(0);
  });
});
