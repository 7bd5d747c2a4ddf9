// The quota's grants as MonthlyQuota makes them, against the test's database: requests of several
// accounts share a statement, and an account's requests under another plan than its first in the
// same moment (its plan changed while they waited) are granted by the next statement, each under
// its own limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MonthlyQuota } from '../../src/rest/monthly-quota.js';
import type { ApiKeyViewer } from '../../src/schema/context.js';
import { openTestDatabase } from '../support/db.js';

let database: Awaited<ReturnType<typeof openTestDatabase>>;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => database?.close());

const NOW = new Date('2026-05-12T03:00:00Z');
const PERIOD = '2026-04-20';
const silent = { warn: () => {}, error: () => {} };

async function viewerOf(email: string, plan: ApiKeyViewer['plan'], used: number): Promise<ApiKeyViewer> {
  const { id } = await database.db.insertInto('accounts').values({ email, plan, billing_day: 20 }).returning('id').executeTakeFirstOrThrow();
  await database.db.updateTable('accounts').set({ quota_used: used, quota_period: PERIOD }).where('id', '=', id).execute();
  return { kind: 'apiKey', accountId: id, keyId: '00000000-0000-4000-8000-000000000000', plan, billingDay: 20 };
}

const used = async (accountId: string) =>
  (await database.db.selectFrom('accounts').select('quota_used').where('id', '=', accountId).executeTakeFirstOrThrow()).quota_used;

describe('MonthlyQuota', () => {
  it("grants an account's requests under two plans at once, each under its own limit, and the other accounts' beside them", async () => {
    const quota = new MonthlyQuota(database.db, () => NOW, { commitApart: Boolean(process.env.DATABASE_URL), logger: silent });
    // 4,998 used: Starter (5,000) has 2 left, Professional (50,000) many more.
    const starter = await viewerOf('two-plans@example.test', 'starter', 4_998);
    const professional: ApiKeyViewer = { ...starter, plan: 'professional' };
    const other = await viewerOf('beside@example.test', 'starter', 0);
    const outcome = (viewer: ApiKeyViewer) =>
      quota.take(viewer).then(
        (headers) => Number(headers['X-RateLimit-Remaining-Monthly']),
        () => 'refused',
      );
    const answers = await Promise.all([
      ...Array.from({ length: 4 }, () => outcome(starter)),
      ...Array.from({ length: 3 }, () => outcome(professional)),
      ...Array.from({ length: 2 }, () => outcome(other)),
    ]);
    // Starter's requests go first and take the last 2 units; Professional's then count on from 5,000.
    expect(answers).toEqual([1, 0, 'refused', 'refused', 44_999, 44_998, 44_997, 4_999, 4_998]);
    expect(await used(starter.accountId)).toBe(5_003);
    expect(await used(other.accountId)).toBe(2);
    await quota.unanswered.close();
  });
});
