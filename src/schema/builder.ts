import SchemaBuilder from '@pothos/core';
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
    Text: { Input: string; Output: string };
    RateMap: { Input: never; Output: RateValues };
    RateSeries: { Input: never; Output: Record<string, RateValues> };
  };
}>({ defaultFieldNullability: false });

builder.queryType({});
builder.mutationType({});

