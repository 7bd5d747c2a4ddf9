import type { Kysely } from 'kysely';
import { lockAccount } from '../db/accounts.js';
import { countActiveKeys, insertApiKey, prefixesStartingWith, revokeActiveKeysOf, revokeApiKeyByPrefix } from '../db/api-keys.js';
import { KEY_STATUSES, type Account, type ApiKey, type Database } from '../db/database.js';
import { firstFreeVariant, generateIdentifier, hashKey, randomSuburb } from '../domain/api-key.js';
import { PLAN_LIMITS, replacesKeyOnCreate } from '../domain/plans.js';
import { KeyLimitReachedError, NotFoundError } from '../errors.js';
import { accountByEmail } from './account.js';
import { builder } from './builder.js';
import type { Context } from './context.js';

const KeyStatusEnum = builder.enumType('ApiKeyStatus', { values: KEY_STATUSES });

export const ApiKeyRef = builder.objectRef<ApiKey>('ApiKey').implement({
  description: 'An API key as stored: never the key itself, only its prefix and last four characters.',
  fields: (t) => ({
    id: t.expose('id', { type: 'UUID' }),
    prefix: t.exposeString('prefix'),
    lastFour: t.exposeString('last_four'),
    status: t.expose('status', { type: KeyStatusEnum }),
    createdAt: t.expose('created_at', { type: 'DateTime' }),
  }),
});

export interface CreatedApiKey {
  key: string;
  apiKey: ApiKey;
}

export const CreatedApiKeyRef = builder.objectRef<CreatedApiKey>('CreatedApiKey').implement({
  fields: (t) => ({
    key: t.exposeString('key', { description: 'The key itself: shown this once, never stored' }),
    apiKey: t.field({ type: ApiKeyRef, resolve: (c) => c.apiKey }),
  }),
});

const RANDOM_PREFIX_TRIES = 12;

/** Inserts a key under a suburb never used by another key (D18 in docs/decisions.md). */
async function insertWithFreshPrefix(trx: Kysely<Database>, accountId: string): Promise<CreatedApiKey> {
  const identifier = generateIdentifier();
  const store = async (prefix: string) => {
    const key = `${prefix}_${identifier}`;
    const apiKey = await insertApiKey(trx, { accountId, prefix, keyHash: hashKey(key), lastFour: key.slice(-4) });
    return apiKey && { key, apiKey };
  };
  for (let i = 0; i < RANDOM_PREFIX_TRIES; i++) {
    const created = await store(randomSuburb());
    if (created) return created;
  }
  // Nearly every suburb is taken: number the next one.
  const base = randomSuburb();
  const created = await store(firstFreeVariant(base, new Set(await prefixesStartingWith(trx, base))));
  if (!created) throw new Error('Could not find a free key prefix');
  return created;
}

/**
 * Issues a key to the account. On single-key plans (Free, Starter) the existing key is revoked in
 * the same transaction; on the others a key beyond the plan's count is refused.
 */
export async function issueApiKey(ctx: Context, account: Account): Promise<CreatedApiKey> {
  const created = await ctx.services.db.transaction().execute(async (trx) => {
    await lockAccount(trx, account.id);
    if (replacesKeyOnCreate(account.plan)) {
      await revokeActiveKeysOf(trx, account.id);
    } else {
      const limit = PLAN_LIMITS[account.plan].apiKeys;
      if ((await countActiveKeys(trx, account.id)) >= limit) {
        throw new KeyLimitReachedError(`The ${PLAN_LIMITS[account.plan].name} plan allows ${limit} active API keys; revoke one before creating another`);
      }
    }
    return insertWithFreshPrefix(trx, account.id);
  });
  await ctx.services.changes.publish('keys_changed');
  return created;
}

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: CreatedApiKeyRef,
    description: "Issues a key. On single-key plans (Free, Starter) it revokes the existing key; on the others it is refused beyond the plan's key count.",
    args: { email: t.arg({ type: 'EmailAddress', required: true }) },
    authScopes: { operator: true },
    resolve: async (_root, { email }, ctx) => {
      const account = await accountByEmail(ctx, email);
      return issueApiKey(ctx, account);
    },
  }),
  revokeApiKey: t.field({
    type: ApiKeyRef,
    description: 'Revokes the active key with this prefix; it stops working at once.',
    args: { prefix: t.arg({ type: 'Text', required: true }) },
    authScopes: { operator: true },
    resolve: async (_root, { prefix }, ctx) => {
      const revoked = await revokeApiKeyByPrefix(ctx.services.db, prefix);
      if (!revoked) throw new NotFoundError(`No active API key with prefix ${prefix}`);
      await ctx.services.changes.publish('keys_changed');
      return revoked;
    },
  }),
}));
