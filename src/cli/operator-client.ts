// How operator commands run (D33 in docs/decisions.md): through the running service's internal
// endpoint when there is one (a second process must never open the embedded database it holds),
// else in-process on a database opened here.
import { execute, parse } from 'graphql';
import { createServices } from '../app.js';
import type { Config } from '../config.js';
import { startChangeFeed } from '../db/change-feed.js';
import { openDatabase, targetFromConfig } from '../db/connect.js';
import { migrateToLatest } from '../db/migrate.js';
import { DomainError } from '../errors.js';
import { createContext } from '../schema/context.js';
import { schema } from '../schema/index.js';
import { findRunningService, keepDataDirPrivate, loadOperatorToken } from '../service-file.js';

/** A refused operation: the CLI prints `{"error": message}` and exits non-zero. */
export class OperatorError extends Error {}

export interface OperatorClient {
  run<T>(document: string, variables?: Record<string, unknown>): Promise<T>;
  close(): Promise<void>;
}

interface GraphQLResponse {
  data?: unknown;
  errors?: readonly { message: string }[];
}

function dataOrThrow<T>(result: GraphQLResponse): T {
  if (result.errors?.length) throw new OperatorError(result.errors.map((e) => e.message).join('; '));
  return result.data as T;
}

export async function connectOperator(config: Config): Promise<OperatorClient> {
  const running = findRunningService(config.DATA_DIR);
  if (running) {
    const token = loadOperatorToken(config);
    return {
      async run<T>(document: string, variables?: Record<string, unknown>) {
        const response = await fetch(running.internalUrl, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
          body: JSON.stringify({ query: document, variables }),
        }).catch((error: unknown) => {
          throw new OperatorError(`The service (pid ${running.pid}) runs but its internal endpoint ${running.internalUrl} did not answer: ${String(error)}`);
        });
        if (response.status === 401) throw new OperatorError('The running service refused the operator token');
        return dataOrThrow<T>((await response.json()) as GraphQLResponse);
      },
      close: async () => {},
    };
  }
  if (!config.DATABASE_URL) keepDataDirPrivate(config.DATA_DIR);
  const { db, target } = await openDatabase(targetFromConfig(config));
  await migrateToLatest(db);
  // Other processes on a shared Postgres must hear of revocations and imports made here.
  const changes = await startChangeFeed(target, (error) => console.error(error));
  const { services } = createServices(db, changes, config);
  return {
    async run<T>(document: string, variables?: Record<string, unknown>) {
      const result = await execute({
        schema,
        document: parse(document),
        contextValue: createContext(services, { operator: true }),
        variableValues: variables,
      });
      const original = result.errors?.[0]?.originalError;
      if (original && !(original instanceof DomainError)) throw original;
      return dataOrThrow<T>(result);
    },
    async close() {
      await changes.close();
      await db.destroy();
    },
  };
}
