// Operator commands run in this process, on a database opened here, when no service runs on
// DATA_DIR (D33 in docs/decisions.md). Loaded only then: beside a running service a command needs
// none of the service's modules, and starts in a fraction of the time.
import { createServices } from '../app.js';
import type { Config } from '../config.js';
import { startChangeFeed } from '../db/change-feed.js';
import { openDatabase, targetFromConfig } from '../db/connect.js';
import { migrateStore } from '../db/migrate.js';
import { DomainError, StoreOpenError } from '../errors.js';
import type { TadaDocumentNode } from '../graphql.js';
import { operationLimitRules } from '../internal/limits.js';
import { OPERATOR } from '../schema/context.js';
import { createExecutor } from '../schema/executor.js';
import { schema } from '../schema/index.js';
import { keepDataDirPrivate } from '../service-file.js';
import { OperatorError, type GraphQLResponse, type OperatorClient } from './operator-client.js';
import { POSTGRES_BACKUP } from './backup.js';

/** A store that cannot be opened is printed as every refusal is, {"error": …}: the command line loads no store module to know this class. */
function storeRefusal(error: unknown): never {
  throw error instanceof StoreOpenError ? new OperatorError(error.message) : error;
}

export async function openLocalOperator(config: Config): Promise<OperatorClient> {
  if (!config.DATABASE_URL) keepDataDirPrivate(config.DATA_DIR);
  const { db, target, snapshot } = await openDatabase(targetFromConfig(config)).catch(storeRefusal);
  await migrateStore({ db, target }).catch(storeRefusal);
  // Other processes on a shared Postgres must hear of revocations and imports made here.
  const changes = await startChangeFeed(target, (error) => console.error(error));
  const { services } = createServices(db, changes, config);
  const executor = createExecutor(schema, services);
  return {
    async run<Result, Variables extends Record<string, unknown>>(document: TadaDocumentNode<Result, Variables>, variables: Variables) {
      try {
        return (await executor.run(document, variables, OPERATOR)).data;
      } catch (error) {
        // A refusal is the command's answer, as the internal endpoint would give it; anything else is a fault.
        if (error instanceof DomainError) throw new OperatorError(error.message);
        throw error;
      }
    },
    // As the internal endpoint would: checked against the schema and its operation limits, run.
    execute: async (document, variables) =>
      JSON.parse(JSON.stringify(await executor.runText(document, variables, OPERATOR, operationLimitRules))) as GraphQLResponse,
    async backup() {
      if (!snapshot) throw new OperatorError(POSTGRES_BACKUP);
      return Buffer.from(await (await snapshot()).arrayBuffer());
    },
    async close() {
      await changes.close();
      await db.destroy();
    },
  };
}
