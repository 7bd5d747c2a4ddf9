import type { Kysely } from 'kysely';
import type { Plan } from '../domain/plans.js';
import type { AccountStatus, ApiKey, Database, KeyStatus } from './database.js';

export async function insertApiKey(
  db: Kysely<Database>,
  key: { accountId: string; prefix: string; keyHash: string; lastFour: string; restrictions?: StoredRestrictions },
): Promise<ApiKey | null> {
  const row = await db
    .insertInto('api_keys')
    .values({ account_id: key.accountId, prefix: key.prefix, key_hash: key.keyHash, last_four: key.lastFour, ...key.restrictions })
    .onConflict((oc) => oc.column('prefix').doNothing())
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}

export async function prefixesStartingWith(db: Kysely<Database>, base: string): Promise<string[]> {
  const rows = await db.selectFrom('api_keys').select('prefix').where('prefix', 'like', `${base}%`).execute();
  return rows.map((r) => r.prefix);
}

export interface KeyHolder {
  keyId: string;
  keyStatus: KeyStatus;
  prefix: string;
  accountId: string;
  accountStatus: AccountStatus;
  plan: Plan;
  billingDay: number;
  allowedIps: string[] | null;
  allowedEndpoints: string[] | null;
  expiresOn: string | null;
  monthlyCap: number | null;
}

export async function findKeyHolderByHash(db: Kysely<Database>, keyHash: string): Promise<KeyHolder | null> {
  const row = await db
    .selectFrom('api_keys')
    .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
    .select([
      'api_keys.id as keyId',
      'api_keys.status as keyStatus',
      'api_keys.prefix as prefix',
      'accounts.id as accountId',
      'accounts.status as accountStatus',
      'accounts.plan as plan',
      'accounts.billing_day as billingDay',
      'api_keys.allowed_ips as allowedIps',
      'api_keys.allowed_endpoints as allowedEndpoints',
      'api_keys.expires_on as expiresOn',
      'api_keys.monthly_cap as monthlyCap',
    ])
    .where('api_keys.key_hash', '=', keyHash)
    .executeTakeFirst();
  return row ?? null;
}

export async function revokeApiKeyByPrefix(db: Kysely<Database>, prefix: string): Promise<ApiKey | null> {
  const row = await db
    .updateTable('api_keys')
    .set({ status: 'revoked', revoked_at: new Date() })
    .where('prefix', '=', prefix)
    .where('status', '=', 'active')
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}

export async function countActiveKeys(db: Kysely<Database>, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('status', '=', 'active')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function revokeActiveKeysOf(db: Kysely<Database>, accountId: string): Promise<number> {
  const rows = await db
    .updateTable('api_keys')
    .set({ status: 'revoked', revoked_at: new Date() })
    .where('account_id', '=', accountId)
    .where('status', '=', 'active')
    .returning('id')
    .execute();
  return rows.length;
}

/** Revokes the account's active key with this id; null when the account has no such active key. */
export async function revokeKeyOfAccount(db: Kysely<Database>, accountId: string, keyId: string): Promise<ApiKey | null> {
  const row = await db
    .updateTable('api_keys')
    .set({ status: 'revoked', revoked_at: new Date() })
    .where('id', '=', keyId)
    .where('account_id', '=', accountId)
    .where('status', '=', 'active')
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}

/** A key's restrictions as stored: null columns are no restriction of that kind. */
export interface StoredRestrictions {
  allowed_ips: string[] | null;
  allowed_endpoints: string[] | null;
  expires_on: string | null;
  monthly_cap: number | null;
}

/**
 * Sets the active key's restrictions. A cap set where there was none starts the key's count at 0
 * (it is counted only while capped); a cap changed keeps the count. Null when the key is not
 * active (or not the account's, when `accountId` is given).
 */
export async function setKeyRestrictions(db: Kysely<Database>, keyId: string, restrictions: StoredRestrictions, accountId?: string): Promise<ApiKey | null> {
  let update = db
    .updateTable('api_keys')
    .set((eb) => ({
      ...restrictions,
      cap_used: eb.case().when('monthly_cap', 'is', null).then(0).else(eb.ref('cap_used')).end(),
      cap_free_used: eb.case().when('monthly_cap', 'is', null).then(0).else(eb.ref('cap_free_used')).end(),
      cap_period: eb.case().when('monthly_cap', 'is', null).then(null).else(eb.ref('cap_period')).end(),
    }))
    .where('id', '=', keyId)
    .where('status', '=', 'active');
  if (accountId !== undefined) update = update.where('account_id', '=', accountId);
  return (await update.returningAll().executeTakeFirst()) ?? null;
}

export async function findActiveKeyByPrefix(db: Kysely<Database>, prefix: string): Promise<ApiKey | null> {
  const row = await db.selectFrom('api_keys').selectAll().where('prefix', '=', prefix).where('status', '=', 'active').executeTakeFirst();
  return row ?? null;
}
