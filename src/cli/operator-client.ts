// How operator commands run (D33 in docs/decisions.md): through the running service's internal
// endpoint when there is one (a second process must never open the embedded database it holds),
// else in-process on a database opened here (local-operator.ts, loaded only then). Without a
// service the command says on stderr which store it used, and opens no embedded database that is
// not there yet unless asked to (`--create`, or `import`, which fills a new store).
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { resolve } from 'node:path';
import { print } from 'graphql';
import type { Config } from '../config.js';
import type { TadaDocumentNode } from '../graphql.js';
import { BACKUP_PATH } from '../internal/paths.js';
import { findRunningService, loadOperatorToken, type ServiceFile } from '../service-file.js';

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
  /** a consistent copy of the embedded database (a gzipped tar), taken while the service runs */
  backup(): Promise<Buffer>;
  close(): Promise<void>;
}

export interface GraphQLResponse {
  data?: unknown;
  errors?: readonly { message: string }[];
}

/** The data of an answered operation: the shape its typed document says (the schema answered it). */
export function dataOrThrow<Result>(result: GraphQLResponse): Result {
  if (result.errors?.length) throw new OperatorError(result.errors.map((e) => e.message).join('; '));
  return result.data as Result;
}

/** Whether a command may make a new embedded database where there is none. */
export interface StoreChoice {
  create: boolean;
  /** where the command says which store it used (stderr: stdout holds its one JSON object) */
  say: (line: string) => void;
}

/** The store a command opens itself, in words: the embedded database's directory, or the server without its password. */
function describeStore(config: Config): string {
  if (!config.DATABASE_URL) return `the embedded database in ${resolve(config.DATA_DIR, 'pgdata')}`;
  const url = new URL(config.DATABASE_URL);
  return `the PostgreSQL database ${url.pathname.slice(1) || '(default)'} on ${url.host}`;
}

export async function connectOperator(config: Config, choice: StoreChoice): Promise<OperatorClient> {
  const running = await findRunningService(config.DATA_DIR);
  if (running) return serviceClient(config, running);
  // PG_VERSION is the first thing Postgres writes into a database directory it creates.
  if (!config.DATABASE_URL && !choice.create && !existsSync(resolve(config.DATA_DIR, 'pgdata', 'PG_VERSION'))) {
    throw new OperatorError(
      `No database in DATA_DIR ${config.DATA_DIR} (${resolve(config.DATA_DIR)}) and no service running on it: ` +
        "set DATA_DIR to the service's data directory (or DATABASE_URL to its server), or add --create to make a new database there",
    );
  }
  choice.say(`No service runs on DATA_DIR ${config.DATA_DIR}: using ${describeStore(config)}`);
  const { openLocalOperator } = await import('./local-operator.js');
  return openLocalOperator(config);
}

/** One POST; node:http rather than fetch, whose first use costs a command a tenth of its time. */
function post(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Commands through the running service's internal endpoint (plain HTTP on its own port). */
function serviceClient(config: Config, running: ServiceFile): OperatorClient {
  const token = loadOperatorToken(config);
  const send = async (url: string, headers: Record<string, string>, body: string) => {
    const response = await post(url, { Authorization: `Bearer ${token}`, ...headers }, body).catch((error: unknown) => {
      throw new OperatorError(`The service (pid ${running.pid}) runs but its internal endpoint ${url} did not answer: ${String(error)}`);
    });
    if (response.status === 401) throw new OperatorError('The running service refused the operator token');
    return response;
  };
  const execute = async (document: string, variables?: Record<string, unknown>) => {
    const response = await send(running.internalUrl, { 'Content-Type': 'application/json' }, JSON.stringify({ query: document, variables }));
    return JSON.parse(response.bytes.toString('utf8')) as GraphQLResponse;
  };
  return {
    run: async <Result, Variables extends Record<string, unknown>>(document: TadaDocumentNode<Result, Variables>, variables: Variables) =>
      dataOrThrow<Result>(await execute(print(document), variables)),
    execute,
    async backup() {
      // the internal endpoint's GraphQL path is in service.json; its other places are beside it
      const response = await send(new URL(BACKUP_PATH, running.internalUrl).href, {}, '');
      if (response.status !== 200) throw new OperatorError(errorOf(response.bytes) ?? `The service answered the backup with ${response.status}`);
      return response.bytes;
    },
    close: async () => {},
  };
}

/** The first error's message of a refusal in GraphQL's shape, if it is one. */
function errorOf(bytes: Buffer): string | null {
  try {
    const { errors } = JSON.parse(bytes.toString('utf8')) as { errors?: { message?: unknown }[] };
    const message = errors?.[0]?.message;
    return typeof message === 'string' ? message : null;
  } catch {
    return null;
  }
}
