// POST /mcp (D40 in docs/decisions.md): the Model Context Protocol over Streamable HTTP with the
// official SDK, stateless, answered in JSON. A place of the public edge (src/edge.ts), which has
// given the request its id, its client and D20's verdict; here the REST API's method check and key
// authentication run, then the one JSON-RPC message goes to a fresh SDK server: the SDK's stateless
// transport serves a single request. A tool call the SDK would accept is answered directly (below).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  isJSONRPCRequest,
  type CallToolRequest,
  type RequestId,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { Logger } from 'pino';
import { BadRequestError } from '../errors.js';
import { compose } from '../rest/compose.js';
import type { Answer, Exchange, Place, Step } from '../rest/exchange.js';
import type { RestOptions } from '../rest/pipeline.js';
import type { PathRoutes } from '../rest/router.js';
import type { Route } from '../rest/route.js';
import { routes } from '../rest/routes.js';
import { authenticate } from '../rest/steps/authenticate.js';
import { envelopeOf } from '../rest/steps/errors.js';
import { checkMethod } from '../rest/steps/method.js';
import { routeRunner } from '../rest/steps/operation.js';
import { VERSION } from '../version.js';
import { ToolCalls, resultJsonOf, resultOf } from './tool-call.js';
import { TOOLS } from './tools.js';

export const MCP_PATH = '/mcp';

/** Agents' messages are small; this leaves room for large client capabilities, and refuses a flood early. */
export const MAX_MCP_BODY_BYTES = 64 * 1024;

/**
 * The endpoint as the steps before the answer see it: one POST route that needs a key. It has no
 * operation of its own (each tool runs its twin's), so only what those steps read is given.
 */
const MCP_ROUTE = { name: 'Mcp', method: 'POST', path: MCP_PATH, auth: 'key', cacheControl: 'no-store' } as const;
const MCP_PATH_ROUTES: PathRoutes = { routes: [MCP_ROUTE as unknown as Route], allow: 'POST', template: MCP_PATH, cors: false };

const SERVER_INFO = { name: 'aud-rates', title: 'AUD exchange rates', version: VERSION };
const INSTRUCTIONS =
  'Reserve Bank of Australia exchange rates quoted against the Australian dollar (AUD), with the same answers, keys, plans and quotas as the REST API. Data tools count one request each against the monthly quota; list_currencies and get_service_status are free.';
/** Only elicitation would use it, which these tools never do: one for every request rather than an Ajv each. */
const VALIDATOR = new AjvJsonSchemaValidator();

const NO_STORE = { 'Cache-Control': 'no-store' };

/** A JSON-RPC error the SDK's transport would give for the same body, for what is refused before it. */
const rpcError = (code: number, message: string): Answer => ({
  status: 400,
  body: JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }),
  headers: NO_STORE,
});

/** The SDK's view of the request: the headers its transport reads (the body is handed over parsed). */
function sdkRequest(exchange: Exchange): Request {
  const headers: Record<string, string> = {};
  for (const name of ['accept', 'content-type', 'mcp-protocol-version']) {
    const value = exchange.request.header(name);
    if (value !== null) headers[name] = value;
  }
  return new Request(exchange.request.url, { method: 'POST', headers });
}

/**
 * The message as a tool call the SDK's stateless server would run: headers it accepts, a valid
 * tools/call request of a known tool, not asking for a task. Null for anything else, which the SDK
 * then answers, refusals included.
 */
function directToolCall(exchange: Exchange, message: unknown, tools: ToolCalls): { id: RequestId; call: CallToolRequest } | null {
  const accept = exchange.request.header('accept');
  const version = exchange.request.header('mcp-protocol-version');
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return null;
  if (!isJsonContentType(exchange.request.header('content-type'))) return null;
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return null;
  if (!isJSONRPCRequest(message)) return null;
  const call = CallToolRequestSchema.safeParse(message);
  if (!call.success || call.data.params.task !== undefined || !tools.has(call.data.params.name)) return null;
  return { id: message.id, call: call.data };
}

function answerMessages(tools: ToolCalls): Step {
  return async (exchange) => {
    // A body declared too large is refused before it is read: the listener then discards what still
    // comes, and the client reads its answer rather than a reset connection.
    if (Number(exchange.request.header('content-length')) > MAX_MCP_BODY_BYTES) {
      throw new BadRequestError(`The request body is too large: at most ${MAX_MCP_BODY_BYTES} bytes`);
    }
    // Only a tool call is counted in usage, under its tool's name (below).
    exchange.outcome = null;
    const text = await exchange.request.body(MAX_MCP_BODY_BYTES);
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      exchange.answer = rpcError(-32700, 'Parse error: the body is not JSON');
      return;
    }
    // JSON-RPC batches left the protocol in its 2025-06-18 revision; one call per request keeps each counted and observed alone.
    if (Array.isArray(message)) {
      exchange.answer = rpcError(-32600, 'Invalid Request: batches are not supported; send one JSON-RPC message per request');
      return;
    }
    const direct = directToolCall(exchange, message, tools);
    if (direct) {
      // The call agents make by the thousand skips building a server and a transport for it; its answer
      // has the SDK's shape (`{result, jsonrpc, id}`), with the twin's body written once, exact digits kept.
      const { params } = direct.call;
      const call = await tools.call(params.name, params.arguments, exchange);
      exchange.outcome = { name: `mcp:${call.tool}`, status: call.status };
      exchange.answer = { status: 200, body: `{"result":${resultJsonOf(call)},"jsonrpc":"2.0","id":${JSON.stringify(direct.id)}}`, headers: NO_STORE };
      return;
    }
    const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: VALIDATOR });
    server.setRequestHandler(ListToolsRequestSchema, () => tools.list);
    server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
      const call = await tools.call(params.name, params.arguments, exchange);
      exchange.outcome = { name: `mcp:${call.tool}`, status: call.status };
      return resultOf(call);
    });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      const response = await transport.handleRequest(sdkRequest(exchange), { parsedBody: message as JSONRPCMessage });
      exchange.answer = { status: response.status, body: response.status === 202 ? null : await response.text(), headers: NO_STORE };
    } finally {
      await server.close();
    }
  };
}

export type McpOptions = Pick<RestOptions, 'schema' | 'services' | 'keys' | 'documentationUrl' | 'limits'> & { logger: Logger };

/** /mcp as a place of the edge: the REST API's refusals first (D11), then the protocol. */
export function mcpPlaces(options: McpOptions): Place[] {
  const tools = new ToolCalls({
    definitions: TOOLS,
    table: routes,
    run: routeRunner(options.schema, routes, options.services, options.documentationUrl),
    limits: options.limits,
    clock: options.services.clock,
    logger: options.logger,
  });
  const serve = compose([checkMethod, authenticate(options.keys, options.services), answerMessages(tools)]);
  return [{ path: MCP_PATH, template: MCP_PATH, cors: false, routes: MCP_PATH_ROUTES, paramPatterns: null, serve, render: envelopeOf }];
}
