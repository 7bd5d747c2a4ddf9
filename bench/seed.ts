// Stores the bench's rate history as an import of the file would (bench/fixtures.ts), and creates an
// enterprise account with one key through the internal GraphQL endpoint's operator mutations, as an
// operator would (see test/support/app.ts).
import type { App } from '../src/app.js';
import { batchOf, importRates } from '../src/jobs/import-rates.js';
import { HISTORY, LAST_DATE } from './fixtures.js';

interface GraphQLResult<T> {
  data?: T;
  errors?: { message: string }[];
}

export function operatorClient(app: App, operatorToken: string) {
  return async <T>(document: string, variables: Record<string, unknown>): Promise<T> => {
    const response = await app.internal.fetch('http://internal.bench/graphql', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${operatorToken}` },
      body: JSON.stringify({ query: document, variables }),
    });
    const result = (await response.json()) as GraphQLResult<T>;
    if (result.errors?.length) throw new Error(`operator request failed: ${result.errors.map((e) => e.message).join('; ')}`);
    if (!result.data) throw new Error(`operator request returned no data (HTTP ${response.status})`);
    return result.data;
  };
}

/** The accounts of the target with a key per connection: one for each of the default 50 connections. */
const ACCOUNTS_WITH_A_KEY = 50;

export interface Seeded {
  days: number;
  firstDate: string;
  lastDate: string;
  key: string;
  /** keys of as many other accounts, one each, for the target that gives every connection its own */
  accountKeys: string[];
}

export async function seed(app: App, operatorToken: string): Promise<Seeded> {
  const operator = operatorClient(app, operatorToken);
  const stored = await importRates(app.services, batchOf(HISTORY.source, HISTORY.table));
  if (stored.inserted !== stored.days || stored.lastDate !== LAST_DATE) {
    throw new Error(`expected ${stored.days} new days up to ${LAST_DATE}, got ${JSON.stringify(stored)}`);
  }
  const email = 'bench@example.test';
  await operator('mutation($e: EmailAddress!, $p: Plan!) { createAccount(email: $e, plan: $p) { id } }', { e: email, p: 'enterprise' });
  const { createApiKey } = await operator<{ createApiKey: { key: string } }>('mutation($e: EmailAddress!) { createApiKey(email: $e) { key } }', { e: email });
  const accountKeys: string[] = [];
  for (let n = 1; n <= ACCOUNTS_WITH_A_KEY; n++) {
    const other = `bench-${n}@example.test`;
    await operator('mutation($e: EmailAddress!, $p: Plan!) { createAccount(email: $e, plan: $p) { id } }', { e: other, p: 'enterprise' });
    accountKeys.push(
      (await operator<{ createApiKey: { key: string } }>('mutation($e: EmailAddress!) { createApiKey(email: $e) { key } }', { e: other })).createApiKey.key,
    );
  }
  return { days: stored.days, firstDate: stored.firstDate, lastDate: stored.lastDate, key: createApiKey.key, accountKeys };
}
