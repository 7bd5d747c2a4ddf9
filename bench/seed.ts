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

export interface Seeded {
  days: number;
  firstDate: string;
  lastDate: string;
  key: string;
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
  return { days: stored.days, firstDate: stored.firstDate, lastDate: stored.lastDate, key: createApiKey.key };
}
