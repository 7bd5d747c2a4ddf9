import type { Kysely } from 'kysely';
import { findAccountById, lockAccount } from '../db/accounts.js';
import {
  countActiveKeys,
  findActiveKeyByPrefix,
  insertApiKey,
  prefixesStartingWith,
  revokeActiveKeysOf,
  revokeApiKeyByPrefix,
  setKeyRestrictions,
  type StoredRestrictions,
} from '../db/api-keys.js';
import { KEY_STATUSES, type Account, type ApiKey, type Database } from '../db/database.js';
import { firstFreeVariant, generateIdentifier, hashKey, randomSuburb } from '../domain/api-key.js';
import { PLAN_LIMITS, replacesKeyOnCreate } from '../domain/plans.js';
import { KeyLimitReachedError, NotFoundError } from '../errors.js';
import { accountByEmail } from './account.js';
import { builder } from './builder.js';
import type { Context } from './context.js';
import { KeyRestrictionsInput, KeyRestrictionsRef, restrictionsAfter, UNRESTRICTED, type RestrictionsChange } from './key-restrictions.js';

const KeyStatusEnum = builder.enumType('ApiKeyStatus', { values: KEY_STATUSES });

export const ApiKeyRef = builder.objectRef<ApiKey>('ApiKey').implement({
  description: 'An API key as stored: never the key itself, only its prefix and last four characters.',
  fields: (t) => ({
    id: t.expose('id', { type: 'UUID' }),
    prefix: t.exposeString('prefix'),
    lastFour: t.exposeString('last_four'),
    status: t.expose('status', { type: KeyStatusEnum }),
    createdAt: t.expose('created_at', { type: 'DateTime' }),
    restrictions: t.field({
      type: KeyRestrictionsRef,
      resolve: async (key, _args, ctx) => ({ key, account: await ctx.loaders.account.load(key.account_id) }),
    }),
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
async function insertWithFreshPrefix(trx: Kysely<Database>, accountId: string, restrictions: StoredRestrictions): Promise<CreatedApiKey> {
  const identifier = generateIdentifier();
  const store = async (prefix: string) => {
    const key = `${prefix}_${identifier}`;
    const apiKey = await insertApiKey(trx, { accountId, prefix, keyHash: hashKey(key), lastFour: key.slice(-4), restrictions });
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
 * Issues a key to the account, with the restrictions given (checked first). On single-key plans
 * (Free, Starter) the existing key is revoked in the same transaction; on the others a key beyond
 * the plan's count is refused.
 */
export async function issueApiKey(ctx: Context, account: Account, change?: RestrictionsChange | null): Promise<CreatedApiKey> {
  const restrictions = restrictionsAfter(UNRESTRICTED, change, false, account, ctx.services.clock());
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
    return insertWithFreshPrefix(trx, account.id, restrictions);
  });
  await ctx.services.changes.publish('keys_changed');
  return created;
}

/**
 * Changes an active key's restrictions (`clear` removes them all first). Every process serves the
 * change once this returns: their key caches hear of it through the change feed.
 */
export async function restrictKey(ctx: Context, key: ApiKey, change: RestrictionsChange | null | undefined, clear: boolean): Promise<ApiKey> {
  const account = await findAccountById(ctx.services.db, key.account_id);
  if (!account) throw new NotFoundError('No active API key with that id');
  const restrictions = restrictionsAfter(key, change, clear, account, ctx.services.clock());
  const changed = await setKeyRestrictions(ctx.services.db, key.id, restrictions);
  if (!changed) throw new NotFoundError(`No active API key with prefix ${key.prefix}`);
  await ctx.services.changes.publish('keys_changed');
  return changed;
}

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: CreatedApiKeyRef,
    description: "Issues a key. On single-key plans (Free, Starter) it revokes the existing key; on the others it is refused beyond the plan's key count.",
    args: { email: t.arg({ type: 'EmailAddress', required: true }), restrictions: t.arg({ type: KeyRestrictionsInput }) },
    authScopes: { operator: true },
    resolve: async (_root, { email, restrictions }, ctx) => {
      const account = await accountByEmail(ctx, email);
      return issueApiKey(ctx, account, restrictions);
    },
  }),
  restrictApiKey: t.field({
    type: ApiKeyRef,
    description:
      'Changes the restrictions of the active key with this prefix: a restriction left out is kept, null removes it, `clear` removes them all first. Every process applies it before this returns.',
    args: {
      prefix: t.arg({ type: 'Text', required: true }),
      restrictions: t.arg({ type: KeyRestrictionsInput }),
      clear: t.arg.boolean({ defaultValue: false }),
    },
    authScopes: { operator: true },
    resolve: async (_root, { prefix, restrictions, clear }, ctx) => {
      const key = await findActiveKeyByPrefix(ctx.services.db, prefix);
      if (!key) throw new NotFoundError(`No active API key with prefix ${prefix}`);
      return restrictKey(ctx, key, restrictions, clear ?? false);
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
