// A Postgres server that crashes while a grant's transaction is open (its commit not yet sent, or
// sent and lost) may, once restarted, give that transaction's id to a new transaction: the id never
// reached its log. If the new one commits, the id reads as committed, and a refund asked by id alone
// would give back units the grant never took: an answer served free. The grant's own mark says.
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connect.js';
import type { Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { refundIfCommitted } from '../../src/db/quota.js';
import { grantOne, marked } from '../support/quota.js';
import { startOwnPostgres, type OwnPostgres } from '../support/postgres.js';

const PERIOD = { period: '2026-04-20' };

describe.skipIf(!process.env.DATABASE_URL)("a grant open when its server crashed (a server of the test's own: needs initdb and pg_ctl)", () => {
  let store: OwnPostgres;
  beforeAll(async () => {
    store = await startOwnPostgres();
  }, 60_000);
  afterAll(() => store?.destroy());

  const open = async () => (await openDatabase({ kind: 'postgres', url: store.url })).db;
  const used = async (db: Kysely<Database>, id: string) =>
    (await db.selectFrom('accounts').select('quota_used').where('id', '=', id).executeTakeFirstOrThrow()).quota_used;

  it('is not refunded when a transaction after the restart is given its id and commits', { timeout: 60_000 }, async () => {
    const before = await open();
    await migrateToLatest(before);
    const { id } = await before.insertInto('accounts').values({ email: 'crash@example.test', plan: 'starter' }).returning('id').executeTakeFirstOrThrow();
    await before.updateTable('accounts').set({ quota_used: 10, quota_period: PERIOD.period }).where('id', '=', id).execute();
    const grant = await before.connection().execute(async (connection) => {
      const made = marked((await grantOne(connection, id, PERIOD, 5_000, 3, 'begin'))!);
      await store.stop(); // the commit never goes
      return made;
    });
    await before.destroy().catch(() => undefined);
    await store.start();

    const after = await open();
    try {
      await grantOne(after, id, PERIOD, 5_000, 2);
      // The premise: the open grant's id was given again, to a transaction that committed.
      const { rows } = await sql<{ status: string }>`select pg_xact_status(${grant.transaction}::xid8) as status`.execute(after);
      expect(rows[0]!.status).toBe('committed');
      expect(await used(after, id)).toBe(12);
      expect(await refundIfCommitted(after, id, grant)).toBe('not committed');
      expect(await used(after, id)).toBe(12);
      expect(await after.selectFrom('quota_refunds').selectAll().execute()).toEqual([]);
    } finally {
      await after.destroy();
    }
  });
});
