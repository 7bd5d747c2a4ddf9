// POST /backup on the internal port (what `cli backup` asks a running service for): behind the
// operator token, POST only; on the embedded database a gzipped copy of its directory that opens
// as the same database, on a Postgres server a refusal that names pg_dump.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connect.js';
import { appForFile, OPERATOR_TOKEN } from '../support/app.js';
import { syntheticTable } from '../support/rates.js';

const t = appForFile({}, syntheticTable('2026-05-04', '2026-05-11'));
const backup = (init: RequestInit = {}) => t.app.internal.fetch('http://internal.test/backup', { method: 'POST', ...init });
const auth = { Authorization: `Bearer ${OPERATOR_TOKEN}` };

describe('POST /backup', () => {
  it('needs the operator token, and POST', async () => {
    expect((await backup()).status).toBe(401);
    expect((await backup({ headers: { Authorization: 'Bearer not-the-token-not-the-token' } })).status).toBe(401);
    const get = await backup({ method: 'GET', headers: auth });
    expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST, OPTIONS']);
  });

  it.skipIf(Boolean(process.env.DATABASE_URL))('answers a gzipped copy of the embedded database that opens as the same database', async () => {
    await t.createKey('starter', 'copied@example.test');
    const response = await backup({ headers: auth });
    expect([response.status, response.headers.get('content-type'), response.headers.get('cache-control')]).toEqual([200, 'application/gzip', 'no-store']);
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]);
    const { db } = await openDatabase({ kind: 'pglite', loadDataDir: new Blob([bytes]) });
    try {
      const read = async (from: typeof db) =>
        (await sql<{ n: number; e: string }>`select count(*)::int as n, string_agg(email, ',' order by email) as e from accounts`.execute(from)).rows;
      expect(await read(db)).toEqual(await read(t.db));
      const rates = async (from: typeof db) => (await sql<{ n: number }>`select count(*)::int as n from rates`.execute(from)).rows[0]!.n;
      expect(await rates(db)).toBe(await rates(t.db));
    } finally {
      await db.destroy();
    }
  });

  it.skipIf(!process.env.DATABASE_URL)('on a Postgres server: 409, naming pg_dump', async () => {
    const response = await backup({ headers: auth });
    expect(response.status).toBe(409);
    expect(((await response.json()) as { errors: { message: string }[] }).errors[0]!.message).toMatch(/pg_dump/);
  });
});
