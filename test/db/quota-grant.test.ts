// The grant statement (D16, D17, D35 in docs/decisions.md): as many units as asked while they last,
// each count in its own column; and the refund of a grant whose commit went unanswered: its units
// back if it committed, once, and nothing if it did not.
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { grantUnits, pruneGrantMarks, refundIfCommitted } from '../../src/db/quota.js';
import { grantApart, grantOne, grantOpen, marked } from '../support/quota.js';
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
    expect(await grantOne(db, id, period, 5_000, 4)).toMatchObject({ start: 4_990, granted: 4, countedIn: '2026-04-20' });
    expect(await grantOne(db, id, period, 5_000, 50)).toMatchObject({ start: 4_994, granted: 6 });
    expect(await grantOne(db, id, period, 5_000, 3)).toMatchObject({ start: 5_000, granted: 0 });
    expect(await countsOf(id)).toMatchObject({ quota_used: 5_000, free_used: 0 });
  });

  it('starts a new period at 0, and Free counts in its own column', async () => {
    const id = await account({ quota_used: 5_000, quota_period: '2026-04-20', free_used: 299 });
    expect(await grantOne(db, id, { period: '2026-05-20' }, 5_000, 2)).toMatchObject({ start: 0, granted: 2, countedIn: '2026-05-20' });
    expect(await grantOne(db, id, { period: null }, 300, 5)).toMatchObject({ start: 299, granted: 1, countedIn: null });
    expect(await countsOf(id)).toEqual({ quota_used: 2, free_used: 300, quota_period: '2026-05-20' });
  });

  it('counts a request stamped with an older period in the stored one, and says so', async () => {
    const id = await account({ quota_used: 8, quota_period: '2026-05-20' });
    expect(await grantOne(db, id, { period: '2026-04-20' }, 5_000, 1)).toMatchObject({ start: 8, granted: 1, countedIn: '2026-05-20' });
    expect(await countsOf(id)).toMatchObject({ quota_used: 9, quota_period: '2026-05-20' });
  });

  it('names its transaction, a different one for each grant', async () => {
    const id = await account({ quota_used: 0, quota_period: '2026-04-20' });
    const first = await grantOne(db, id, { period: '2026-04-20' }, 5_000, 1);
    const second = await grantOne(db, id, { period: '2026-04-20' }, 5_000, 1);
    expect(first!.transaction).toMatch(/^\d+$/);
    expect(BigInt(second!.transaction)).toBeGreaterThan(BigInt(first!.transaction));
  });

  it('is null for an account that is gone, and takes nothing', async () => {
    expect(await grantOne(db, '00000000-0000-4000-8000-000000000000', { period: '2026-04-20' }, 5_000, 1)).toBeNull();
  });
});

describe('grantUnits for several accounts', () => {
  it('grants each account from its own count, in one transaction, and answers in the order asked', async () => {
    const paid = await account({ quota_used: 4_998, quota_period: '2026-04-20' });
    const free = await account({ free_used: 10 });
    const other = await account({ quota_used: 0, quota_period: '2026-04-20' });
    const gone = '00000000-0000-4000-8000-000000000000';
    const grants = await grantUnits(db, [
      { accountId: free, count: { period: null }, limit: 300, wanted: 3 },
      { accountId: gone, count: { period: '2026-04-20' }, limit: 5_000, wanted: 1 },
      { accountId: paid, count: { period: '2026-04-20' }, limit: 5_000, wanted: 5 },
      { accountId: other, count: { period: '2026-04-20' }, limit: 5_000, wanted: 1 },
    ]);
    expect(grants).toEqual([
      { start: 10, granted: 3, countedIn: null, transaction: expect.stringMatching(/^\d+$/), mark: null, keyStart: null, keyId: null },
      null,
      { start: 4_998, granted: 2, countedIn: '2026-04-20', transaction: grants[0]!.transaction, mark: null, keyStart: null, keyId: null },
      { start: 0, granted: 1, countedIn: '2026-04-20', transaction: grants[0]!.transaction, mark: null, keyStart: null, keyId: null },
    ]);
    expect(await countsOf(paid)).toMatchObject({ quota_used: 5_000 });
    expect(await countsOf(free)).toMatchObject({ free_used: 13 });
    expect(await countsOf(other)).toMatchObject({ quota_used: 1 });
  });

  // Without an order, one statement could hold a row another waits for while waiting for one the
  // other holds: Postgres would end one of them as a deadlock. PGlite has one connection.
  it.skipIf(!process.env.DATABASE_URL)('locks the rows in the order of their ids, so two statements asking in opposite orders both go through', async () => {
    const [a, b] = (await Promise.all([account({ quota_used: 0, quota_period: '2026-04-20' }), account({ quota_used: 0, quota_period: '2026-04-20' })])).sort();
    const ask = (accountId: string) => ({ accountId, count: { period: '2026-04-20' }, limit: 5_000, wanted: 1 });
    const lockWaits = async () =>
      Number(
        (await sql<{ n: string }>`select count(*) as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`.execute(db))
          .rows[0]!.n,
      );
    await db.connection().execute(async (holder) => {
      // b is held while the first statement asks for b then a, and the second for a then b. Taken
      // in the order asked, the first would wait for b, the second take a and wait for b, and once
      // b is free each would wait for the other.
      await sql`begin`.execute(holder);
      await sql`select id from accounts where id = ${b}::uuid for no key update`.execute(holder);
      const first = grantUnits(db, [ask(b), ask(a)]);
      for (let waited = 0; (await lockWaits()) < 1 && waited < 5_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
      const second = grantUnits(db, [ask(a), ask(b)]);
      for (let waited = 0; (await lockWaits()) < 2 && waited < 5_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
      await sql`commit`.execute(holder);
      const granted = await Promise.all([first, second]);
      expect(granted.flat().map((g) => g?.granted)).toEqual([1, 1, 1, 1]);
    });
    expect((await countsOf(a)).quota_used).toBe(2);
    expect((await countsOf(b)).quota_used).toBe(2);
  });
});

async function key(accountId: string, counts: { cap_used?: number; cap_period?: string | null; cap_free_used?: number } = {}): Promise<string> {
  const { id } = await db
    .insertInto('api_keys')
    .values({ account_id: accountId, prefix: `grantcap${++accounts}`, key_hash: `hash-${accounts}`, last_four: 'abcd', monthly_cap: 1 })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (Object.keys(counts).length > 0) await db.updateTable('api_keys').set(counts).where('id', '=', id).execute();
  return id;
}

const keyCountsOf = (id: string) =>
  db.selectFrom('api_keys').select(['cap_used', 'cap_period', 'cap_free_used']).where('id', '=', id).executeTakeFirstOrThrow();

describe("grantUnits with a key's monthly cap", () => {
  const period = { period: '2026-04-20' };

  it("grants at most what is left of the key's cap, counting the key's units beside the account's", async () => {
    const id = await account({ quota_used: 100, quota_period: '2026-04-20' });
    const capped = await key(id, { cap_used: 7, cap_period: '2026-04-20' });
    const [grant] = await grantUnits(db, [{ accountId: id, count: period, limit: 5_000, wanted: 5, key: { id: capped, cap: 10 } }]);
    expect(grant).toMatchObject({ start: 100, granted: 3, keyStart: 7, keyId: capped });
    expect(await countsOf(id)).toMatchObject({ quota_used: 103 });
    expect(await keyCountsOf(capped)).toEqual({ cap_used: 10, cap_period: '2026-04-20', cap_free_used: 0 });
    const [none] = await grantUnits(db, [{ accountId: id, count: period, limit: 5_000, wanted: 1, key: { id: capped, cap: 10 } }]);
    expect(none).toMatchObject({ granted: 0, keyStart: 10 });
  });

  it("stops at the account's quota when it is nearer than the cap", async () => {
    const id = await account({ quota_used: 4_999, quota_period: '2026-04-20' });
    const capped = await key(id);
    const [grant] = await grantUnits(db, [{ accountId: id, count: period, limit: 5_000, wanted: 5, key: { id: capped, cap: 10 } }]);
    expect(grant).toMatchObject({ start: 4_999, granted: 1, keyStart: 0 });
  });

  it("starts the key's count again in a new period, and counts Free's allowance apart", async () => {
    const id = await account({ quota_used: 3, quota_period: '2026-04-20', free_used: 5 });
    const capped = await key(id, { cap_used: 10, cap_period: '2026-03-20', cap_free_used: 2 });
    const [paid] = await grantUnits(db, [{ accountId: id, count: period, limit: 5_000, wanted: 4, key: { id: capped, cap: 10 } }]);
    expect(paid).toMatchObject({ granted: 4, keyStart: 0 });
    const [free] = await grantUnits(db, [{ accountId: id, count: { period: null }, limit: 300, wanted: 4, key: { id: capped, cap: 3 } }]);
    expect(free).toMatchObject({ granted: 1, keyStart: 2 });
    expect(await keyCountsOf(capped)).toEqual({ cap_used: 4, cap_period: '2026-04-20', cap_free_used: 3 });
  });

  it('applies each ask its own cap when one statement asks for several accounts', async () => {
    const first = await account({ quota_used: 0, quota_period: '2026-04-20' });
    const second = await account({ quota_used: 0, quota_period: '2026-04-20' });
    const third = await account({ quota_used: 0, quota_period: '2026-04-20' });
    const [k1, k2] = [await key(first, { cap_used: 1, cap_period: '2026-04-20' }), await key(second)];
    const grants = await grantUnits(db, [
      { accountId: first, count: period, limit: 5_000, wanted: 5, key: { id: k1, cap: 3 } },
      { accountId: second, count: period, limit: 5_000, wanted: 2, key: { id: k2, cap: 9 } },
      { accountId: third, count: period, limit: 5_000, wanted: 2 },
    ]);
    expect(grants.map((g) => [g?.granted, g?.keyStart, g?.keyId])).toEqual([
      [2, 1, k1],
      [2, 0, k2],
      [2, null, null],
    ]);
    expect(await keyCountsOf(k1)).toMatchObject({ cap_used: 3 });
    expect(await keyCountsOf(k2)).toMatchObject({ cap_used: 2 });
    expect((await countsOf(first)).quota_used).toBe(2);
  });

  it("gives a refunded grant's units back to the key's count too", async () => {
    const id = await account({ quota_used: 0, quota_period: '2026-04-20' });
    const capped = await key(id);
    const grant = await db.connection().execute(async (connection) => {
      const [made] = await grantOpen(connection, [{ accountId: id, count: period, limit: 5_000, wanted: 3, key: { id: capped, cap: 10 } }]);
      await sql`commit`.execute(connection);
      return marked(made!);
    });
    expect(await refundIfCommitted(db, id, grant)).toBe('refunded');
    expect((await keyCountsOf(capped)).cap_used).toBe(0);
    expect((await countsOf(id)).quota_used).toBe(0);
  });
});

describe('refundIfCommitted', () => {
  const refunds = (id: string) => db.selectFrom('quota_refunds').selectAll().where('account_id', '=', id).execute();

  it('gives back the units of a grant that committed, once however often it is asked', async () => {
    const id = await account({ quota_used: 10, quota_period: '2026-04-20' });
    const grant = (await grantApart(db, id, { period: '2026-04-20' }, 5_000, 3))!;
    await grantOne(db, id, { period: '2026-04-20' }, 5_000, 2); // a later grant keeps its units
    expect((await countsOf(id)).quota_used).toBe(15);
    expect(await refundIfCommitted(db, id, grant)).toBe('refunded');
    expect((await countsOf(id)).quota_used).toBe(12);
    expect(await refundIfCommitted(db, id, grant)).toBe('refunded');
    expect((await countsOf(id)).quota_used).toBe(12);
    expect(await refunds(id)).toEqual([
      { grant_transaction: Number(grant.transaction), account_id: id, period: '2026-04-20', units: 3, refunded_at: expect.any(Date) },
    ]);
  });

  it('gives each account of a grant that committed its own units back', async () => {
    const first = await account({ quota_used: 10, quota_period: '2026-04-20' });
    const second = await account({ quota_used: 20, quota_period: '2026-04-20' });
    const [one, two] = await db.connection().execute(async (connection) => {
      const grants = await grantOpen(connection, [
        { accountId: first, count: { period: '2026-04-20' }, limit: 5_000, wanted: 3 },
        { accountId: second, count: { period: '2026-04-20' }, limit: 5_000, wanted: 4 },
      ]);
      await sql`commit`.execute(connection);
      return grants.map((grant) => marked(grant!));
    });
    expect(await refundIfCommitted(db, first, one!)).toBe('refunded');
    expect(await refundIfCommitted(db, second, two!)).toBe('refunded');
    expect(await refundIfCommitted(db, second, two!)).toBe('refunded');
    expect((await countsOf(first)).quota_used).toBe(10);
    expect((await countsOf(second)).quota_used).toBe(20);
    expect((await refunds(first)).concat(await refunds(second)).map((r) => [r.grant_transaction, r.units])).toEqual([
      [Number(one!.transaction), 3],
      [Number(one!.transaction), 4],
    ]);
  });

  it("gives Free's units back to Free's count", async () => {
    const id = await account({ quota_used: 4, quota_period: '2026-04-20', free_used: 100 });
    const grant = (await grantApart(db, id, { period: null }, 300, 5))!;
    expect(await refundIfCommitted(db, id, grant)).toBe('refunded');
    expect(await countsOf(id)).toMatchObject({ quota_used: 4, free_used: 100 });
  });

  it('takes nothing from a period that has started since', async () => {
    const id = await account({ quota_used: 10, quota_period: '2026-04-20' });
    const grant = (await grantApart(db, id, { period: '2026-04-20' }, 5_000, 3))!;
    await grantOne(db, id, { period: '2026-05-20' }, 5_000, 1);
    expect(await refundIfCommitted(db, id, grant)).toBe('refunded');
    expect(await countsOf(id)).toMatchObject({ quota_used: 1, quota_period: '2026-05-20' });
  });

  it('gives nothing back for a grant that never committed', async () => {
    const id = await account({ quota_used: 10, quota_period: '2026-04-20' });
    const grant = (await grantApart(db, id, { period: '2026-04-20' }, 5_000, 3, 'rollback'))!;
    await grantOne(db, id, { period: '2026-04-20' }, 5_000, 2);
    expect(await refundIfCommitted(db, id, grant)).toBe('not committed');
    expect((await countsOf(id)).quota_used).toBe(12);
    expect(await refunds(id)).toEqual([]);
  });

  // PGlite has one connection, so only a server can ask about a transaction still open on another.
  it.skipIf(!process.env.DATABASE_URL)('says "in progress" while the grant is still open, and refunds it once it commits', async () => {
    const id = await account({ quota_used: 10, quota_period: '2026-04-20' });
    await db.connection().execute(async (connection) => {
      const grant = marked((await grantOne(connection, id, { period: '2026-04-20' }, 5_000, 3, 'begin'))!);
      expect(await refundIfCommitted(db, id, grant)).toBe('in progress');
      await sql`commit`.execute(connection);
      expect(await refundIfCommitted(db, id, grant)).toBe('refunded');
    });
    expect((await countsOf(id)).quota_used).toBe(10);
  });
});

describe('grant marks', () => {
  const hasMark = async (mark: string) => (await db.selectFrom('quota_grant_marks').select('mark').where('mark', '=', mark).execute()).length === 1;

  it('are written by a grant in a transaction of its own, kept only if it commits; a grant that commits with its statement writes none', async () => {
    const id = await account({ quota_used: 0, quota_period: '2026-04-20' });
    const before = await db
      .selectFrom('quota_grant_marks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect((await grantOne(db, id, { period: '2026-04-20' }, 5_000, 1))!.mark).toBeNull();
    const committed = (await grantApart(db, id, { period: '2026-04-20' }, 5_000, 1))!;
    const rolledBack = (await grantApart(db, id, { period: '2026-04-20' }, 5_000, 1, 'rollback'))!;
    expect(committed.mark).toMatch(/^[0-9a-f-]{36}$/);
    expect(rolledBack.mark).not.toBe(committed.mark);
    expect(await hasMark(committed.mark)).toBe(true);
    expect(await hasMark(rolledBack.mark)).toBe(false);
    const after = await db
      .selectFrom('quota_grant_marks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n) - Number(before.n)).toBe(1);
  });

  it('are pruned by age: those made before the given instant go, later ones stay', async () => {
    const id = await account({ quota_used: 0, quota_period: '2026-04-20' });
    const old = (await grantApart(db, id, { period: '2026-04-20' }, 5_000, 1))!;
    const recent = (await grantApart(db, id, { period: '2026-04-20' }, 5_000, 1))!;
    await sql`update quota_grant_marks set granted_at = now() - interval '2 hours' where mark = ${old.mark}::uuid`.execute(db);
    expect(await pruneGrantMarks(db, new Date(Date.now() - 3_600_000), 1_000)).toBeGreaterThanOrEqual(1);
    expect(await hasMark(old.mark)).toBe(false);
    expect(await hasMark(recent.mark)).toBe(true);
    // a pruned mark reads as a grant that never committed: its units stay counted
    expect(await refundIfCommitted(db, id, old)).toBe('not committed');
    expect((await countsOf(id)).quota_used).toBe(2);
  });

  it('are pruned at most `limit` at a time', async () => {
    const id = await account({ quota_used: 0, quota_period: '2026-04-20' });
    const marks = [];
    for (let i = 0; i < 3; i++) marks.push((await grantApart(db, id, { period: '2026-04-20' }, 5_000, 1))!.mark);
    await sql`update quota_grant_marks set granted_at = now() - interval '3 hours' where mark = any(${marks}::uuid[])`.execute(db);
    const before = new Date(Date.now() - 2 * 3_600_000);
    expect(await pruneGrantMarks(db, before, 2)).toBe(2);
    expect(await pruneGrantMarks(db, before, 2)).toBe(1);
    expect(await pruneGrantMarks(db, before, 2)).toBe(0);
  });
});

describe('grantUnits, at the edges', () => {
  it('takes an account id as a value, never as SQL: a quote in it is a bad uuid, and nothing changes', async () => {
    const id = await account({ quota_used: 7, quota_period: '2026-04-20' });
    await expect(grantOne(db, `${id}'::uuid, null, 1, 1); update accounts set quota_used = 0; --`, { period: '2026-04-20' }, 5_000, 1)).rejects.toThrow(/uuid/);
    expect((await countsOf(id)).quota_used).toBe(7);
  });

  it('keeps each value one element of its list: a comma, brace, quote or backslash in it cannot add another', async () => {
    const [first, second] = [await account({ quota_used: 7, quota_period: '2026-04-20' }), await account({ quota_used: 3, quota_period: '2026-04-20' })];
    for (const smuggled of [`${first},${second}`, `${first}"}`, `${first}\\",NULL,"${second}`, `${first}},{${second}`]) {
      await expect(grantOne(db, smuggled, { period: '2026-04-20' }, 5_000, 1)).rejects.toThrow(/uuid/);
    }
    expect((await countsOf(first)).quota_used).toBe(7);
    expect((await countsOf(second)).quota_used).toBe(3);
  });

  // A transaction that references an account (a usage flush, a new key) holds a key-share lock on
  // its row until it ends; the grant changes only counters, so it must not wait for it
  // (`for no key update`). PGlite has one connection, so only a server can hold the two transactions at once.
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
      // the grant either ends or is seen waiting for a lock (by the database, whatever the machine's speed)
      let ended = false;
      const granting = grantOne(db, id, { period: '2026-04-20' }, 5_000, 2).finally(() => (ended = true));
      const waiting = async () => {
        const query = sql<{ n: string }>`select count(*) as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`;
        while (!ended) {
          if (Number((await query.execute(db)).rows[0]!.n) > 0) return 'waited for a lock';
          await new Promise((r) => setTimeout(r, 20));
        }
        return 'ended';
      };
      const outcome = await Promise.race([granting, waiting()]);
      expect(outcome).toMatchObject({ start: 0, granted: 2 });
    } finally {
      released();
      await other;
    }
    expect((await countsOf(id)).quota_used).toBe(2);
  });
});
