// The `graphql` tag for every fixed document in this repository (the REST facade's routes, the
// operator CLI, the tests): gql.tada types each document's variables and result from
// schema.graphql at compile time, through the introspection output src/graphql-env.d.ts
// (`npm run schema:print` writes both; `npm run typecheck` fails when either is stale). At run
// time the tag only parses the document, once, where it is written.
import { initGraphQLTada } from 'gql.tada';
import type { RateValues } from './db/rates.js';
import type { RateSeries } from './domain/rate-history.js';
import type { introspection } from './graphql-env.d.ts';

/** What each custom scalar of src/schema/scalars.ts is on the wire (variables and JSON results alike). */
interface Scalars {
  LocalDate: string;
  DateTime: string;
  SafeInt: number;
  EmailAddress: string;
  UUID: string;
  Decimal: string;
  SignedDecimal: string;
  Text: string;
  RateMap: RateValues;
  RateSeries: RateSeries;
}

export const graphql = initGraphQLTada<{ introspection: introspection; scalars: Scalars }>();

export type { ResultOf, VariablesOf, TadaDocumentNode } from 'gql.tada';
