// The MCP tests' ways in: the service's public handler on a real port, the SDK's own client over
// Streamable HTTP with a bearer key, and raw POSTs for what a well-behaved client never sends.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { pino } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { listenerLimitsOf } from '../../src/http/limits.js';
import { createListener } from '../../src/http/server.js';
import { parseConfig } from '../../src/config.js';
import type { TestApp } from '../support/app.js';

export const PROTOCOL_VERSION = '2025-06-18';

export interface Listener {
  /** http://127.0.0.1:<port> */
  readonly origin: string;
}

/** The app's public handler (app.web, as the service listens) on a port of its own, for the file's tests. */
export function listenerFor(t: TestApp): Listener {
  let server: Server | undefined;
  let origin = '';
  beforeAll(async () => {
    server = createListener(t.app.web, { limits: listenerLimitsOf(parseConfig({})), logger: pino({ level: 'silent' }) });
    await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((done) => server?.close(done));
  });
  return {
    get origin() {
      return origin;
    },
  };
}

/** The SDK's client, connected (initialize and initialized sent) with `key` as its bearer token. */
export async function mcpClient(listener: Listener, key: string): Promise<Client> {
  const client = new Client({ name: 'aud-rates-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', listener.origin), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return client;
}

export interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** the parsed body, or undefined when there is none or it is not JSON */
  json: any;
}

/** A POST to /mcp as a client that speaks the protocol (the headers it needs), with this body. */
export async function post(
  listener: Listener,
  body: unknown,
  options: { key?: string; headers?: Record<string, string>; method?: string } = {},
): Promise<RawAnswer> {
  const headers: Record<string, string> = {
    Accept: 'application/json, text/event-stream',
    'Content-Type': 'application/json',
    'Mcp-Protocol-Version': PROTOCOL_VERSION,
    ...(options.key ? { Authorization: `Bearer ${options.key}` } : {}),
    ...options.headers,
  };
  const method = options.method ?? 'POST';
  const init: RequestInit = { method, headers };
  if (method === 'POST') init.body = typeof body === 'string' ? body : JSON.stringify(body);
  const response = await fetch(new URL('/mcp', listener.origin), init);
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

let ids = 0;

/** One tools/call as a raw JSON-RPC request. */
export const toolCall = (name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: ++ids,
  method: 'tools/call',
  params: { name, arguments: args },
});

/** A GET of the REST API on the same port, with the key: the twin's answer as sent. */
export async function rest(listener: Listener, path: string, key: string): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await fetch(new URL(path, listener.origin), { headers: { Authorization: `Bearer ${key}` } });
  return { status: response.status, text: await response.text(), headers: response.headers };
}
