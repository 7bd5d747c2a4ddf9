import SchemaBuilder from '@pothos/core';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import type { RateValues } from '../db/rates.js';
import type { RateSeries } from '../domain/rate-history.js';
import type { Context } from './context.js';
import { refusalFor, viewerScopes, type ViewerScopes } from './viewer-scopes.js';

export const builder = new SchemaBuilder<{
  Context: Context;
  AuthScopes: ViewerScopes;
  DefaultFieldNullability: false;
  Scalars: {
    LocalDate: { Input: string; Output: string };
    DateTime: { Input: Date; Output: Date };
    SafeInt: { Input: number; Output: number };
    EmailAddress: { Input: string; Output: string };
    UUID: { Input: string; Output: string };
    Decimal: { Input: string; Output: string };
    SignedDecimal: { Input: never; Output: string };
    Text: { Input: string; Output: string };
    RateMap: { Input: never; Output: RateValues };
    RateSeries: { Input: never; Output: RateSeries };
  };
}>({
  defaultFieldNullability: false,
  // scope-auth first, so its checks run before any other plugin's wrapping of a resolver.
  plugins: [ScopeAuthPlugin, RelayPlugin],
  scopeAuth: {
    authScopes: viewerScopes,
    unauthorizedError: (_parent, _ctx, _info, result) => refusalFor(result.failure),
  },
  // Cursor pagination for the analytics lists (the internal endpoint); no global Node ids. Cursors
  // are opaque IDs, checked before use (src/schema/analytics-support.ts), never stored.
  relay: { clientMutationId: 'omit', cursorType: 'ID', nodeQueryOptions: false, nodesQueryOptions: false },
});

builder.queryType({});
builder.mutationType({});
