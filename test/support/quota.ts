// One account's grant, as the quota statement makes it for each account it asks (src/db/quota.ts).
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/database.js';
import { grantUnits, type Grant, type QuotaCount, type SentWith } from '../../src/db/quota.js';

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
