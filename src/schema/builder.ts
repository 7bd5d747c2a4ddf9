import SchemaBuilder from '@pothos/core';
import RelayPlugin from '@pothos/plugin-relay';
import type { RateValues } from '../db/rates.js';
import type { Context } from './context.js';

export const builder = new SchemaBuilder<{
  Context: Context;
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
    RateSeries: { Input: never; Output: Record<string, RateValues> };
  };
}>({
  defaultFieldNullability: false,
  plugins: [RelayPlugin],
  // Cursor pagination for the analytics lists (the internal endpoint); no global Node ids. Cursors
  // are opaque IDs, checked before use (src/schema/analytics-support.ts), never stored.
  relay: { clientMutationId: 'omit', cursorType: 'ID', nodeQueryOptions: false, nodesQueryOptions: false },
});

builder.queryType({});
builder.mutationType({});

