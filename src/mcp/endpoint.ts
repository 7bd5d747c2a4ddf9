// POST /mcp (D40 in docs/decisions.md): the Model Context Protocol over Streamable HTTP with the
// official SDK, stateless, answered in JSON. It runs the public edge's own steps (request id, client,
// HTTPS rule, method, the REST API's key authentication, error envelope) and then hands the one
// JSON-RPC message to a fresh SDK server: the SDK's stateless transport serves a single request.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { Logger } from 'pino';
import { BadRequestError } from '../errors.js';
import type { AnsweredRequest } from '../metrics.js';
import { stepsEntries } from '../rest/app.js';
import type { PipelineOptions } from '../rest/pipeline.js';
import type { Answer, Exchange, Step } from '../rest/exchange.js';
import type { PathRoutes } from '../rest/router.js';
import { routes, type Route } from '../rest/routes.js';
import { authenticate } from '../rest/steps/authenticate.js';
import { identifyClient } from '../rest/steps/client.js';
import { errorEnvelopes } from '../rest/steps/errors.js';
import { requireHttps } from '../rest/steps/https.js';
import { checkMethod } from '../rest/steps/method.js';
import { routeRunner } from '../rest/steps/operation.js';
import { requestId } from '../rest/steps/request-id.js';
import type { UsageRecorder } from '../rest/usage.js';
import { VERSION } from '../version.js';
import { ToolCalls, type ToolOutcome } from './tool-call.js';
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

/** The tool call a request carried, for the usage and metrics step on its way out. */
const calls = new WeakMap<Exchange, ToolOutcome>();

const NO_STORE = { 'Cache-Control': 'no-store' };

/** A JSON-RPC error the SDK's transport would give for the same body, for what is refused before it. */
const rpcError = (code: number, message: string): Answer => ({
  status: 400,
  body: JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }),
  headers: NO_STORE,
});

const atMcp: Step = (exchange, next) => {
  exchange.path = MCP_PATH_ROUTES;
  return next(exchange);
};

/** Metrics for every request (a tool call as `mcp:<tool>` with its twin's status), usage for every tool call. */
function observe(usage: Pick<UsageRecorder, 'record'>, metrics: { request(answered: AnsweredRequest): void }): Step {
  return async (exchange, next) => {
    await next(exchange);
    const call = calls.get(exchange);
    if (call) usage.record(exchange.viewer, `mcp:${call.tool}`, call.status, exchange.request.url);
    const status = call?.status ?? exchange.answer!.status;
    metrics.request({
      route: call ? `mcp:${call.tool}` : MCP_PATH,
      method: exchange.request.method,
      status,
      seconds: (performance.now() - exchange.started) / 1000,
      cached: false,
      refusal: status === 429 && exchange.viewer ? 'quota' : null,
    });
  };
}

/** The SDK's view of the request: the headers its transport reads (the body is handed over parsed). */
function sdkRequest(exchange: Exchange): Request {
  const headers: Record<string, string> = {};
  for (const name of ['accept', 'content-type', 'mcp-protocol-version']) {
    const value = exchange.request.header(name);
    if (value !== null) headers[name] = value;
  }
  return new Request(exchange.request.url, { method: 'POST', headers });
}

function answerMessages(tools: ToolCalls): Step {
  return async (exchange) => {
    // A body declared too large is refused before it is read: the listener then discards what still
    // comes, and the client reads its answer rather than a reset connection.
    if (Number(exchange.request.header('content-length')) > MAX_MCP_BODY_BYTES) {
      throw new BadRequestError(`The request body is too large: at most ${MAX_MCP_BODY_BYTES} bytes`);
    }
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
    const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: VALIDATOR });
    server.setRequestHandler(ListToolsRequestSchema, () => tools.list);
    server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
      const call = await tools.call(params.name, params.arguments, exchange);
      calls.set(exchange, call);
      return call.result;
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

export type McpEndpointOptions = Pick<
  PipelineOptions,
  'schema' | 'services' | 'keys' | 'documentationUrl' | 'limits' | 'usage' | 'trustedProxies' | 'metrics'
> & {
  logger: Logger;
};

/** The steps of /mcp, in the order a request meets them: the REST API's refusals first (D11), then the protocol. */
export function mcpSteps(options: McpEndpointOptions): Step[] {
  const tools = new ToolCalls({
    definitions: TOOLS,
    table: routes,
    run: routeRunner(options.schema, routes, options.services, options.documentationUrl),
    limits: options.limits,
    logger: options.logger,
  });
  return [
    requestId,
    observe(options.usage, options.metrics),
    errorEnvelopes(options.logger),
    identifyClient(options.trustedProxies),
    requireHttps,
    atMcp,
    checkMethod,
    authenticate(options.keys, options.services),
    answerMessages(tools),
  ];
}

/** /mcp's handlers: node:http for the listener, fetch for tests; whoever dispatches the public port calls one. */
export function createMcpEndpoint(options: McpEndpointOptions) {
  return stepsEntries(mcpSteps(options), options.logger);
}
