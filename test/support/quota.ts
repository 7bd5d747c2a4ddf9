// One account's grant, as the quota statement makes it for each account it asks (src/db/quota.ts).
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/db/database.js';
import { grantUnits, type Grant, type GrantAsk, type MarkedGrant, type QuotaCount } from '../../src/db/quota.js';

export async function grantOne(
  db: Kysely<Database>,
  accountId: string,
  count: QuotaCount,
  limit: number,
  wanted: number,
  begin?: 'begin',
): Promise<Grant | null> {
  const asks = [{ accountId, count, limit, wanted }];
  const [grant] = begin ? await grantOpen(db, asks) : await grantUnits(db, asks);
  return grant ?? null;
}

/**
 * Opens a transaction on `connection` and grants in it, writing a mark, as a grant on a Postgres
 * server does; the caller ends the transaction.
 */
export async function grantOpen(connection: Kysely<Database>, asks: readonly GrantAsk[]): Promise<(Grant | null)[]> {
  await sql`begin`.execute(connection);
  return grantUnits(connection, asks, randomUUID());
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
