// POST /mcp (D40 in docs/decisions.md): the Model Context Protocol over Streamable HTTP with the
// official SDK, stateless, answered in JSON. An endpoint of the public edge (src/edge.ts), which has
// routed the method and given the request its id, its client and D20's verdict; here the REST API's
// key authentication runs, then the one JSON-RPC message goes to a fresh SDK server on the SDK's
// stateless transport, which speaks the protocol. Each tool call is answered by its twin route's
// steps (src/mcp/tool-call.ts).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { ErrorCode, ListToolsRequestSchema, McpError, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { z } from 'zod';
import { BadRequestError } from '../errors.js';
import { compose } from '../rest/compose.js';
import { fetchRequestOf, type Answer, type Endpoint, type Step } from '../rest/exchange.js';
import type { Route } from '../rest/route.js';
import { envelopeOf } from '../rest/steps/errors.js';
import { VERSION } from '../version.js';
import { ToolCalls, type ToolCallOptions } from './tool-call.js';
import { TOOLS } from './tools.js';

export const MCP_PATH = '/mcp';

/** Agents' messages are small; this leaves room for large client capabilities, and refuses a flood early. */
export const MAX_MCP_BODY_BYTES = 64 * 1024;

const SERVER_INFO = { name: 'aud-rates', title: 'AUD exchange rates', version: VERSION };
const INSTRUCTIONS =
  'Reserve Bank of Australia exchange rates quoted against the Australian dollar (AUD), with the same answers, keys, plans and quotas as the REST API. Data tools count one request each against the monthly quota; list_currencies, get_publication_calendar, get_usage and get_service_status are free.';
/** Only elicitation would use it, which these tools never do: one for every request rather than an Ajv each. */
const VALIDATOR = new AjvJsonSchemaValidator();

const NO_STORE = { 'Cache-Control': 'no-store' };

/** A JSON-RPC error for a body refused before the SDK reads it. */
const rpcError = (code: number, message: string): Answer => ({
  status: 400,
  body: JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }),
  headers: NO_STORE,
});

/** What is wrong with a tools/call's params, in one sentence; null when they name a tool and give its arguments as an object. */
function toolCallFault(params: unknown): string | null {
  if (typeof params !== 'object' || params === null || Array.isArray(params))
    return "The params of tools/call must be an object with the tool's name and its arguments";
  const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
  if (typeof name !== 'string') return "The params of tools/call must name the tool as text, in 'name'";
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
    return `The arguments of ${name} must be an object of named arguments (or left out)`;
  }
  return null;
}

/**
 * tools/call as the server reads it: its params are checked here first, so that a malformed call is
 * refused as invalid params in one sentence (the SDK's own schema would report a validation dump).
 */
const ToolCallRequest = z.object({
  method: z.literal('tools/call'),
  params: z.unknown().superRefine((params) => {
    const fault = toolCallFault(params);
    if (fault !== null) throw new McpError(ErrorCode.InvalidParams, fault);
  }),
});

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
    const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: VALIDATOR });
    server.setRequestHandler(ListToolsRequestSchema, () => tools.list);
    server.setRequestHandler(ToolCallRequest, async ({ params }) => {
      const { name, arguments: args } = params as { name: string; arguments?: Record<string, unknown> };
      const call = await tools.call(name, args ?? {}, exchange);
      exchange.outcome = { name: `mcp:${call.tool}`, status: call.status };
      return call.result;
    });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      const response = await transport.handleRequest(fetchRequestOf(exchange.request), { parsedBody: message as JSONRPCMessage });
      exchange.answer = { status: response.status, body: response.status === 202 ? null : await response.text(), headers: NO_STORE };
    } finally {
      await server.close();
    }
  };
}

export interface McpOptions {
  /** the key's authentication and the quota's headers on a refusal, as on the REST API */
  authenticate: readonly Step[];
  endpointOf: ToolCallOptions['endpointOf'];
  twinSteps: ToolCallOptions['twinSteps'];
  table: readonly Route[];
}

/** /mcp as an endpoint of the edge: the REST API's refusals first (D11), then the protocol. */
export function mcpEndpoint(options: McpOptions): Endpoint {
  const tools = new ToolCalls({ definitions: TOOLS, table: options.table, endpointOf: options.endpointOf, twinSteps: options.twinSteps });
  return {
    method: 'POST',
    path: MCP_PATH,
    template: MCP_PATH,
    cors: false,
    auth: 'key',
    name: 'Mcp',
    route: null,
    paramPatterns: null,
    serve: compose([...options.authenticate, answerMessages(tools)]),
    render: envelopeOf,
  };
}
