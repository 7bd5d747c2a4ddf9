// How operator commands run (D33 in docs/decisions.md): through the running service's internal
// endpoint when there is one (a second process must never open the embedded database it holds),
// else in-process on a database opened here.
import { execute, GraphQLError, parse, print, specifiedRules, validate, type DocumentNode } from 'graphql';
import { createServices } from '../app.js';
import type { Config } from '../config.js';
import { startChangeFeed } from '../db/change-feed.js';
import { openDatabase, targetFromConfig } from '../db/connect.js';
import { migrateToLatest } from '../db/migrate.js';
import { DomainError } from '../errors.js';
import type { TadaDocumentNode } from '../graphql.js';
import { operationLimitRules } from '../internal/limits.js';
import { createContext, OPERATOR } from '../schema/context.js';
import { schema } from '../schema/index.js';
import { findRunningService, keepDataDirPrivate, loadOperatorToken } from '../service-file.js';

/** A refused operation: the CLI prints `{"error": message}` and exits non-zero. */
export class OperatorError extends Error {}

/** An operation answered with errors: the CLI prints the whole result and exits 1. */
export class OperationFailed extends Error {
  constructor(readonly result: GraphQLResponse) {
    super(result.errors?.map((e) => e.message).join('; '));
  }
}

export interface OperatorClient {
  /** a command's own operation, typed from its document (src/graphql.ts): its data; its errors, if any, as an OperatorError */
  run<Result, Variables extends Record<string, unknown>>(document: TadaDocumentNode<Result, Variables>, variables: Variables): Promise<Result>;
  /** an operation from a file (`query`): its whole result, errors included, as the internal endpoint answers it */
  execute(document: string, variables?: Record<string, unknown>): Promise<GraphQLResponse>;
  close(): Promise<void>;
}

export interface GraphQLResponse {
  data?: unknown;
  errors?: readonly { message: string }[];
}

/** The data of an answered operation: the shape its typed document says (the schema answered it). */
function dataOrThrow<Result>(result: GraphQLResponse): Result {
  if (result.errors?.length) throw new OperatorError(result.errors.map((e) => e.message).join('; '));
  return result.data as Result;
}

export async function connectOperator(config: Config): Promise<OperatorClient> {
  const running = findRunningService(config.DATA_DIR);
  if (running) {
    const token = loadOperatorToken(config);
    const post = async (document: string, variables?: Record<string, unknown>) => {
      const response = await fetch(running.internalUrl, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        body: JSON.stringify({ query: document, variables }),
      }).catch((error: unknown) => {
        throw new OperatorError(`The service (pid ${running.pid}) runs but its internal endpoint ${running.internalUrl} did not answer: ${String(error)}`);
      });
      if (response.status === 401) throw new OperatorError('The running service refused the operator token');
      return (await response.json()) as GraphQLResponse;
    };
    return {
      run: async <Result, Variables extends Record<string, unknown>>(document: TadaDocumentNode<Result, Variables>, variables: Variables) =>
        dataOrThrow<Result>(await post(print(document), variables)),
      execute: post,
      close: async () => {},
    };
  }
  if (!config.DATABASE_URL) keepDataDirPrivate(config.DATA_DIR);
  const { db, target } = await openDatabase(targetFromConfig(config));
  await migrateToLatest(db);
  // Other processes on a shared Postgres must hear of revocations and imports made here.
  const changes = await startChangeFeed(target, (error) => console.error(error));
  const { services } = createServices(db, changes, config);
  /** As the internal endpoint would: checked against the schema and its limits, run. */
  const executeHere = async (document: DocumentNode, variables?: Record<string, unknown>) => {
    const invalid = validate(schema, document, [...specifiedRules, ...operationLimitRules]);
    if (invalid.length > 0) return { errors: invalid };
    return execute({ schema, document, contextValue: createContext(services, OPERATOR), variableValues: variables });
  };
  const executeText = async (text: string, variables?: Record<string, unknown>) => {
    let parsed;
    try {
      parsed = parse(text);
    } catch (error) {
      if (error instanceof GraphQLError) return { errors: [error] };
      throw error;
    }
    return executeHere(parsed, variables);
  };
  return {
    async run<Result, Variables extends Record<string, unknown>>(document: TadaDocumentNode<Result, Variables>, variables: Variables) {
      const result = await executeHere(document, variables);
      const original = result.errors?.[0]?.originalError;
      if (original && !(original instanceof DomainError)) throw original;
      return dataOrThrow<Result>(result);
    },
    execute: async (document, variables) => JSON.parse(JSON.stringify(await executeText(document, variables))) as GraphQLResponse,
    async close() {
      await changes.close();
      await db.destroy();
    },
  };
}
