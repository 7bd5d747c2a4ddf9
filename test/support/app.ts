// The real app on a test database, with a settable clock. Requests go through the app's own fetch
// (no port), operator actions through the real internal endpoint.
import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import { buildApp, type App, type WebhookNetwork } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';
import { ServiceMetrics } from '../../src/metrics.js';
import type { Plan } from '../../src/db/database.js';
import { parseRbaFile, type RbaTable } from '../../src/rba/index.js';
import { openTestDatabase } from './db.js';
import { conformanceChecker, type OpenApiDocument } from './openapi-conformance.js';

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

export interface ImportResult {
  days: number;
  inserted: number;
  updated: number;
  firstDate: string;
  lastDate: string;
  /** the new newest day when the batch published one */
  published: string | null;
  /** webhook deliveries recorded for it */
  deliveries: number;
}

export interface TestApp {
  app: App;
  db: Awaited<ReturnType<typeof openTestDatabase>>['db'];
  /** sets the app's clock */
  setNow(iso: string): void;
  request(path: string, options?: RequestOptions): Promise<Response>;
  /** request() and the parsed JSON body */
  json<T = any>(path: string, options?: RequestOptions): Promise<{ status: number; body: T; headers: Headers }>;
  operator<T = any>(document: string, variables?: Record<string, unknown>): Promise<{ data?: T; errors?: { message: string; extensions?: { code?: string } }[] }>;
  importTable(table: RbaTable, source?: string): Promise<ImportResult>;
  importFixture(name: string): Promise<ImportResult>;
  /** a new account on `plan` and a key for it */
  createKey(plan?: Plan, email?: string): Promise<string>;
  close(): Promise<void>;
}

let accounts = 0;

export interface TestAppOptions {
  now?: string;
  /** extra configuration variables for parseConfig (TRUST_PROXY, …) */
  config?: Record<string, string>;
  /** how webhooks reach the network: a resolver for test names, the receiver's CA, a short timeout */
  webhookNetwork?: WebhookNetwork;
}

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const metrics = new ServiceMetrics();
  const database = await openTestDatabase({ log: metrics.databaseLog });
  let now = new Date(options.now ?? '2026-05-12T03:00:00Z');
  const config = parseConfig({ DOCUMENTATION_URL: 'https://docs.example.test/api', WEBHOOK_KEY: TEST_WEBHOOK_KEY, RBA_HISTORY_URLS: 'off', ...options.config });
  const app = buildApp({
    config,
    db: database.db,
    operatorToken: OPERATOR_TOKEN,
    metrics,
    pool: database.pool,
    clock: () => now,
    logger: pino({ level: 'silent' }),
    ...(options.webhookNetwork ? { webhookNetwork: options.webhookNetwork } : {}),
  });

  const send = async (path: string, { key, method = 'GET', headers = {}, remote, body }: RequestOptions = {}) => {
    const init: RequestInit = { method, headers: { ...headers, ...(key ? { Authorization: `Bearer ${key}` } : {}) } };
    if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body);
    if (!remote) return app.web.fetch(`http://rates.test${path}`, init);
    return app.web.fetch(`http://rates.test${path}`, init, { req: { socket: { remoteAddress: remote.address, encrypted: remote.encrypted } } });
  };
  // Every answer is checked against the service's own OpenAPI document (test/support/openapi-conformance.ts).
  let conformance: ReturnType<typeof conformanceChecker> | undefined;
  const request: TestApp['request'] = async (path, options = {}) => {
    conformance ??= conformanceChecker((await (await send('/openapi.json')).json()) as OpenApiDocument);
    const response = await send(path, options);
    await conformance(options.method ?? 'GET', path, response);
    return response;
  };

  const operator: TestApp['operator'] = async (document, variables) => {
    const response = await app.internal.fetch('http://internal.test/graphql', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${OPERATOR_TOKEN}` },
      body: JSON.stringify({ query: document, variables }),
    });
    return response.json();
  };

  const importTable: TestApp['importTable'] = async (table, source = 'test') => {
    const days = table.days.map((d) => ({ date: d.date, rates: Object.entries(d.rates).map(([code, value]) => ({ code, value })) }));
    const result = await operator(
      'mutation($input: ImportRatesInput!) { importRates(input: $input) { days inserted updated firstDate lastDate published deliveries } }',
      { input: { source, format: table.format, publicationDate: table.publicationDate, days } },
    );
    if (result.errors) throw new Error(result.errors[0]!.message);
    return result.data.importRates;
  };

  return {
    app,
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
    importTable,
    importFixture: (name) => importTable(parseRbaFile(readFileSync(new URL(name, FIXTURES)), name), name),
    async createKey(plan = 'professional', email = `user${++accounts}-${Date.now()}@example.test`) {
      const created = await operator('mutation($e: EmailAddress!, $p: Plan!) { createAccount(email: $e, plan: $p) { id } }', { e: email, p: plan });
      if (created.errors) throw new Error(created.errors[0]!.message);
      const key = await operator('mutation($e: EmailAddress!) { createApiKey(email: $e) { key } }', { e: email });
      if (key.errors) throw new Error(key.errors[0]!.message);
      return key.data.createApiKey.key;
    },
    async close() {
      await app.close();
      await database.close();
    },
  };
}
