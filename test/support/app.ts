// The real app on a test database, with a settable clock. Requests go through the app's own fetch
// (no port), operator actions through the real internal endpoint.
import { readFileSync } from 'node:fs';
import type { LogEvent } from 'kysely';
import { pino, type Logger } from 'pino';
import { print } from 'graphql';
import { buildApp, type App, type WebhookNetwork } from '../../src/app.js';
import { parseConfig, type Config } from '../../src/config.js';
import { batchOf } from '../../src/jobs/import-rates.js';
import { ServiceMetrics } from '../../src/metrics.js';
import type { Plan } from '../../src/domain/plans.js';
import { graphql, type ResultOf, type TadaDocumentNode } from '../../src/graphql.js';
import { parseRbaFile, type RbaTable } from '../../src/rba/index.js';
import { afterAll, beforeAll } from 'vitest';
import { openTestDatabase } from './db.js';
import { conformanceChecker, type OpenApiDocument } from './openapi-conformance.js';
import { standIn } from './stand-in.js';

export const FIXTURES = new URL('../fixtures/rba/', import.meta.url);
export const OPERATOR_TOKEN = 'test-operator-token-0123456789';
export const TEST_WEBHOOK_KEY = Buffer.alloc(32, 7).toString('base64url');

export interface RequestOptions {
  key?: string;
  method?: string;
  headers?: Record<string, string>;
  /**
   * Acts as a client at this socket address (the server context @whatwg-node/server passes from
   * node:http); `encrypted` marks a TLS socket. Without it the client is this machine (loopback).
   */
  remote?: { address?: string; encrypted?: boolean };
  /** a request body; JSON.stringify'd unless already a string */
  body?: unknown;
}

/** What the internal endpoint answers: `data` typed by the document that asked. */
export interface OperatorResult<Result> {
  data?: Result | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

/** A document's variables as arguments: none when it declares only optional ones. */
export type VariablesArgs<Variables> = Record<string, never> extends Variables ? [variables?: Variables] : [variables: Variables];

/** `published`: the new newest day when the batch published one; `deliveries`: webhook deliveries recorded for it */
export type ImportResult = ResultOf<typeof IMPORT>['importRates'];

export interface TestApp {
  app: App;
  /** the app's configuration, for another app on the same database */
  config: Config;
  db: Awaited<ReturnType<typeof openTestDatabase>>['db'];
  /** sets the app's clock */
  setNow(iso: string): void;
  request(path: string, options?: RequestOptions): Promise<Response>;
  /** request() and the parsed JSON body */
  json<T = any>(path: string, options?: RequestOptions): Promise<{ status: number; body: T; headers: Headers }>;
  /** an operation on the internal endpoint, typed from its document (src/graphql.ts) */
  operator<Result, Variables>(document: TadaDocumentNode<Result, Variables>, ...variables: VariablesArgs<Variables>): Promise<OperatorResult<Result>>;
  /**
   * a document that cannot be fixed in the source (one made at run time, a saved operation's file, one
   * that breaks the endpoint's limits on purpose): its result is whatever the endpoint answers
   */
  operatorText(document: string, variables?: Record<string, unknown>): Promise<OperatorResult<any>>;
  importTable(table: RbaTable, source?: string): Promise<ImportResult>;
  importFixture(name: string): Promise<ImportResult>;
  /** a new account on `plan` and a key for it */
  createKey(plan?: Plan, email?: string): Promise<string>;
  close(): Promise<void>;
}

let accounts = 0;

const IMPORT = graphql('mutation($input: ImportRatesInput!) { importRates(input: $input) { days inserted updated firstDate lastDate published deliveries } }');
export const CREATE_ACCOUNT = graphql('mutation($e: EmailAddress!, $p: Plan!) { createAccount(email: $e, plan: $p) { id } }');
export const CREATE_KEY = graphql('mutation($e: EmailAddress!) { createApiKey(email: $e) { key } }');

export interface TestAppOptions {
  now?: string;
  /** extra configuration variables for parseConfig (TRUST_PROXY, …) */
  config?: Record<string, string>;
  /** how webhooks reach the network: a resolver for test names, the receiver's CA, a short timeout */
  webhookNetwork?: WebhookNetwork;
  /** where the app logs; silent otherwise */
  logger?: Logger;
  /** told of every statement the database runs, beside the app's metrics (Kysely's `log` hook) */
  databaseLog?: (event: LogEvent) => void;
}

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const metrics = new ServiceMetrics();
  const { databaseLog } = options;
  const log = databaseLog
    ? (event: LogEvent) => {
        metrics.databaseLog(event);
        databaseLog(event);
      }
    : metrics.databaseLog;
  const database = await openTestDatabase({ log });
  let now = new Date(options.now ?? '2026-05-12T03:00:00Z');
  const config = parseConfig({
    DOCUMENTATION_URL: 'https://docs.example.test/api',
    WEBHOOK_KEY: TEST_WEBHOOK_KEY,
    RBA_HISTORY_URLS: 'off',
    // configured for its database as the service is: on Postgres, the choices it makes for a server
    ...(database.url ? { DATABASE_URL: database.url } : {}),
    ...options.config,
  });
  const app = buildApp({
    config,
    db: database.db,
    operatorToken: OPERATOR_TOKEN,
    metrics,
    pool: database.pool,
    snapshot: database.snapshot,
    clock: () => now,
    logger: options.logger ?? pino({ level: 'silent' }),
    ...(options.webhookNetwork ? { webhookNetwork: options.webhookNetwork } : {}),
  });

  const send = async (path: string, { key, method = 'GET', headers = {}, remote, body }: RequestOptions = {}) => {
    const init: RequestInit = { method, headers: { ...headers, ...(key ? { Authorization: `Bearer ${key}` } : {}) } };
    if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body);
    // the raw request node:http would hand over beside it: the fields as sent, and the socket
    const rawHeaders = Object.entries(init.headers as Record<string, string>).flat();
    const socket = remote ? { remoteAddress: remote.address, encrypted: remote.encrypted } : undefined;
    return app.web.fetch(`http://rates.test${path}`, init, { req: { rawHeaders, ...(socket ? { socket } : {}) } });
  };
  // Every answer is checked against the service's own OpenAPI document (test/support/openapi-conformance.ts).
  let conformance: ReturnType<typeof conformanceChecker> | undefined;
  const request: TestApp['request'] = async (path, options = {}) => {
    conformance ??= conformanceChecker((await (await send('/openapi.json')).json()) as OpenApiDocument);
    const response = await send(path, options);
    await conformance(options.method ?? 'GET', path, response);
    return response;
  };

  const operatorText: TestApp['operatorText'] = async (document, variables) => {
    const response = await app.internal.fetch('http://internal.test/graphql', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${OPERATOR_TOKEN}` },
      body: JSON.stringify({ query: document, variables }),
    });
    return response.json();
  };
  const operator: TestApp['operator'] = (document, ...[variables]) => operatorText(print(document), variables ?? undefined);

  const importTable: TestApp['importTable'] = async (table, source = 'test') => {
    const result = await operator(IMPORT, { input: batchOf(source, table) });
    if (result.errors) throw new Error(result.errors[0]!.message);
    return result.data!.importRates;
  };

  return {
    app,
    config,
    db: database.db,
    setNow: (iso) => {
      now = new Date(iso);
    },
    request,
    async json(path, opts) {
      const response = await request(path, opts);
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
    },
    operator,
    operatorText,
    importTable,
    importFixture: (name) => importTable(parseRbaFile(readFileSync(new URL(name, FIXTURES)), name), name),
    async createKey(plan = 'professional', email = `user${++accounts}-${Date.now()}@example.test`) {
      const created = await operator(CREATE_ACCOUNT, { e: email, p: plan });
      if (created.errors) throw new Error(created.errors[0]!.message);
      const key = await operator(CREATE_KEY, { e: email });
      if (key.errors) throw new Error(key.errors[0]!.message);
      return key.data!.createApiKey.key;
    },
    async close() {
      await app.close();
      await database.close();
    },
  };
}

/**
 * The app a test file's tests share: started before them with `imports` stored in order (fixture
 * names from test/fixtures/rba, or tables), closed after them. What it returns stands in for the
 * app from the start (see standIn), so the file can name it at the top.
 */
export function appForFile(options: TestAppOptions = {}, ...imports: (string | RbaTable)[]): TestApp {
  let t: TestApp | undefined;
  beforeAll(async () => {
    t = await startTestApp(options);
    for (const item of imports) await (typeof item === 'string' ? t.importFixture(item) : t.importTable(item));
  });
  afterAll(() => t?.close());
  return standIn('the app', () => t);
}
