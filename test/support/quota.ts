// One account's grant, as the quota statement makes it for each account it asks (src/db/quota.ts).
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/db/database.js';
import { grantUnits, type Grant, type MarkedGrant, type QuotaCount, type SentWith } from '../../src/db/quota.js';

export async function grantOne(
  db: Kysely<Database>,
  accountId: string,
  count: QuotaCount,
  limit: number,
  wanted: number,
  sentWith?: SentWith,
): Promise<Grant | null> {
  const [grant] = await grantUnits(db, [{ accountId, count, limit, wanted }], sentWith);
  return grant ?? null;
}

/**
 * One account's grant in a transaction of its own, which then commits or rolls back apart from
 * the statement, as a grant on a Postgres server does; null for an account that is gone.
 */
export async function grantApart(
  db: Kysely<Database>,
  accountId: string,
  count: QuotaCount,
  limit: number,
  wanted: number,
  end: 'commit' | 'rollback' = 'commit',
): Promise<MarkedGrant | null> {
  return db.connection().execute(async (connection) => {
    const grant = await grantOne(connection, accountId, count, limit, wanted, 'begin');
    await sql.raw(end).execute(connection);
    return grant && marked(grant);
  });
}

/** The grant as one that wrote its mark; it must have. */
export function marked(grant: Grant): MarkedGrant {
  const { mark } = grant;
  if (mark === null) throw new Error('a grant made in a transaction of its own writes its mark');
  return { ...grant, mark };
}
