// The signed-in account's own API keys, for the dashboard: list, issue, revoke. Another account's
// key is never found.
import { revokeKeyOfAccount } from '../db/api-keys.js';
import type { ListedApiKey } from '../db/loaders/keys-by-account.js';
import { KeyRestrictionsInput } from './key-restrictions.js';
import { AccountSuspendedError, NotFoundError } from '../errors.js';
import { AccountRef } from './account.js';
import { ApiKeyRef, CreatedApiKeyRef, issueApiKey, restrictKey } from './api-key.js';
import { builder } from './builder.js';
import { sessionViewerOf } from './viewer-scopes.js';

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

builder.objectFields(ApiKeyRef, (t) => ({
  lastUsedOn: t.field({
    type: 'LocalDate',
    nullable: true,
    description: 'The last day a request was recorded for the key (listed keys only)',
    resolve: (k) => ('last_used_day' in k ? (k as ListedApiKey).last_used_day : null),
  }),
}));

builder.objectFields(AccountRef, (t) => ({
  apiKeys: t.field({
    type: [ApiKeyRef],
    description: 'Every key of the account, newest first',
    resolve: (a, _args, ctx) => ctx.loaders.keysOfAccount.load(a.id),
  }),
}));

builder.mutationFields((t) => ({
  createSessionApiKey: t.field({
    type: CreatedApiKeyRef,
    description: "Issues a key to the signed-in account, by its plan's rules (createApiKey); refused for a suspended account.",
    args: { restrictions: t.arg({ type: KeyRestrictionsInput }) },
    authScopes: { session: true },
    resolve: async (_root, { restrictions }, ctx) => {
      const { account } = sessionViewerOf(ctx);
      if (account.status === 'suspended') throw new AccountSuspendedError('The account is suspended: no new keys can be created');
      return issueApiKey(ctx, account, restrictions);
    },
  }),
  restrictSessionApiKey: t.field({
    type: ApiKeyRef,
    description: "Changes the restrictions of one of the signed-in account's active keys, as restrictApiKey does.",
    args: { id: t.arg({ type: 'Text', required: true }), restrictions: t.arg({ type: KeyRestrictionsInput }), clear: t.arg.boolean({ defaultValue: false }) },
    authScopes: { session: true },
    resolve: async (_root, { id, restrictions, clear }, ctx) => {
      const { account } = sessionViewerOf(ctx);
      const key = UUID_SHAPE.test(id) ? (await ctx.loaders.keysOfAccount.load(account.id)).find((k) => k.id === id && k.status === 'active') : undefined;
      if (!key) throw new NotFoundError('No active API key of this account has that id');
      return restrictKey(ctx, key, restrictions, clear ?? false);
    },
  }),
  revokeSessionApiKey: t.field({
    type: ApiKeyRef,
    description: "Revokes one of the signed-in account's active keys; it stops working at once.",
    args: { id: t.arg({ type: 'Text', required: true }) },
    authScopes: { session: true },
    resolve: async (_root, { id }, ctx) => {
      const { account } = sessionViewerOf(ctx);
      const revoked = UUID_SHAPE.test(id) ? await revokeKeyOfAccount(ctx.services.db, account.id, id) : null;
      if (!revoked) throw new NotFoundError('No active API key of this account has that id');
      await ctx.services.changes.publish('keys_changed');
      return revoked;
    },
  }),
}));
