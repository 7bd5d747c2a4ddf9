// Migration 0004 (D35 in docs/decisions.md): Free's allowance moves into a count of its own. What
// each account had used of it is kept, paid periods keep their counts, and `down` puts Free's count
// back.
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrator } from '../../src/db/migrate.js';
import { openEmptyDatabase } from '../support/db.js';

let database: Awaited<ReturnType<typeof openEmptyDatabase>>;
let db: Kysely<any>;
beforeAll(async () => {
  database = await openEmptyDatabase();
  db = database.db;
}, 60_000);
afterAll(() => database?.close());

async function migrateTo(name: string): Promise<void> {
  const { error } = await migrator(db).migrateTo(name);
  if (error) throw error instanceof Error ? error : new Error('migration failed', { cause: error });
}

const ACCOUNTS = [
  // email, plan, quota_period, quota_used
  ['free@example.test', 'free', '1970-01-01', 120],
  ['downgraded@example.test', 'free', '2026-10-20', 500],
  ['paid@example.test', 'professional', '2026-11-01', 40],
  ['upgraded-unused@example.test', 'starter', '1970-01-01', 7],
] as const;

async function rows(): Promise<Record<string, unknown>[]> {
  const { rows } = await sql<Record<string, unknown>>`
    select email, quota_period::text as period, quota_used from accounts order by email`.execute(db);
  return rows;
}

describe('migration 0004_free_allowance', () => {
  it('moves what Free accounts used into free_used, leaving paid periods as they were', async () => {
    await migrateTo('0003_webhooks');
    for (const [email, plan, quota_period, quota_used] of ACCOUNTS) {
      await db.insertInto('accounts').values({ email, plan, quota_period, quota_used }).execute();
    }
    await migrateTo('0004_free_allowance');
    const { rows: after } = await sql<{ email: string; period: string; quota_used: number; free_used: number }>`
      select email, quota_period::text as period, quota_used, free_used from accounts order by email`.execute(db);
    expect(after).toEqual([
      { email: 'downgraded@example.test', period: '1970-01-01', quota_used: 0, free_used: 500 },
      { email: 'free@example.test', period: '1970-01-01', quota_used: 0, free_used: 120 },
      { email: 'paid@example.test', period: '2026-11-01', quota_used: 40, free_used: 0 },
      { email: 'upgraded-unused@example.test', period: '1970-01-01', quota_used: 0, free_used: 7 },
    ]);
  });

  // A paid account's unused Free count has no place before 0004: down drops it.
  it("down puts Free accounts' count back in the lifetime period and drops the column", async () => {
    await migrateTo('0003_webhooks');
    expect(await rows()).toEqual([
      { email: 'downgraded@example.test', period: '1970-01-01', quota_used: 500 },
      { email: 'free@example.test', period: '1970-01-01', quota_used: 120 },
      { email: 'paid@example.test', period: '2026-11-01', quota_used: 40 },
      { email: 'upgraded-unused@example.test', period: '1970-01-01', quota_used: 0 },
    ]);
    const { rows: columns } = await sql<{ n: number }>`
      select count(*)::int as n from information_schema.columns where table_name = 'accounts' and column_name = 'free_used'`.execute(db);
    expect(columns[0]!.n).toBe(0);
  });
});
