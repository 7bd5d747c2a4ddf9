// The grant statement (D16, D17, D35 in docs/decisions.md): as many units as asked while they last,
// each count in its own column, and nothing at all once its deadline has passed in the database's
// clock.
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { grantUnits } from '../../src/db/quota.js';
import { openTestDatabase } from '../support/db.js';

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let db: Kysely<Database>;
let accounts = 0;
beforeAll(async () => {
  database = await openTestDatabase();
  db = database.db;
});
afterAll(() => database?.close());

async function account(counts: { quota_used?: number; quota_period?: string; free_used?: number }): Promise<string> {
  const { id } = await db
    .insertInto('accounts')
    .values({ email: `grant-${++accounts}@example.test`, plan: 'starter' })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db.updateTable('accounts').set(counts).where('id', '=', id).execute();
  return id;
}

const countsOf = (id: string) => db.selectFrom('accounts').select(['quota_used', 'free_used', 'quota_period']).where('id', '=', id).executeTakeFirstOrThrow();

describe('grantUnits', () => {
  it('grants as many units as asked, fewer near the limit, none past it', async () => {
    const id = await account({ quota_used: 4_990, quota_period: '2026-04-20' });
    const period = { period: '2026-04-20' };
    expect(await grantUnits(db, id, period, 5_000, 4, null)).toEqual({ start: 4_990, granted: 4 });
    expect(await grantUnits(db, id, period, 5_000, 50, null)).toEqual({ start: 4_994, granted: 6 });
    expect(await grantUnits(db, id, period, 5_000, 3, null)).toEqual({ start: 5_000, granted: 0 });
    expect(await countsOf(id)).toMatchObject({ quota_used: 5_000, free_used: 0 });
  });

  it('starts a new period at 0, and Free counts in its own column', async () => {
    const id = await account({ quota_used: 5_000, quota_period: '2026-04-20', free_used: 299 });
    expect(await grantUnits(db, id, { period: '2026-05-20' }, 5_000, 2, null)).toEqual({ start: 0, granted: 2 });
    expect(await grantUnits(db, id, { period: null }, 300, 5, null)).toEqual({ start: 299, granted: 1 });
    expect(await countsOf(id)).toEqual({ quota_used: 2, free_used: 300, quota_period: '2026-05-20' });
  });

  it('grants nothing once the deadline has passed, and within it as usual', async () => {
    const id = await account({ quota_used: 10, quota_period: '2026-04-20' });
    const period = { period: '2026-04-20' };
    expect(await grantUnits(db, id, period, 5_000, 3, new Date(Date.now() - 1))).toBeNull();
    expect((await countsOf(id)).quota_used).toBe(10);
    expect(await grantUnits(db, id, period, 5_000, 3, new Date(Date.now() + 60_000))).toEqual({ start: 10, granted: 3 });
    expect((await countsOf(id)).quota_used).toBe(13);
  });
});

describe('grantUnits, at the edges', () => {
  it('takes an account id as a value, never as SQL: a quote in it is a bad uuid, and nothing changes', async () => {
    const id = await account({ quota_used: 7, quota_period: '2026-04-20' });
    await expect(
      grantUnits(db, `${id}'::uuid, null, 1, 1, null); update accounts set quota_used = 0; --`, { period: '2026-04-20' }, 5_000, 1, null),
    ).rejects.toThrow(/uuid/);
    expect((await countsOf(id)).quota_used).toBe(7);
  });

  // A transaction that references an account (a usage flush, a new key) holds a key-share lock on
  // its row until it ends; the grant changes only counters, so it must not wait for it (migration
  // 0012). PGlite has one connection, so only a server can hold the two transactions at once.
  it.skipIf(!process.env.DATABASE_URL)('does not wait for a transaction that only references the account', async () => {
    const id = await account({ quota_used: 0, quota_period: '2026-04-20' });
    let released: () => void = () => {};
    const holding = new Promise<void>((resolve) => (released = resolve));
    let locked: () => void = () => {};
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const other = db.transaction().execute(async (trx) => {
      await trx.selectFrom('accounts').select('id').where('id', '=', id).forKeyShare().execute();
      locked();
      await holding;
    });
    try {
      await isLocked;
      const outcome = await Promise.race([
        grantUnits(db, id, { period: '2026-04-20' }, 5_000, 2, null),
        new Promise((resolve) => setTimeout(() => resolve('waited'), 3_000)),
      ]);
      expect(outcome).toEqual({ start: 0, granted: 2 });
    } finally {
      released();
      await other;
    }
    expect((await countsOf(id)).quota_used).toBe(2);
  });
});
