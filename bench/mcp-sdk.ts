// The MCP SDK's own work for one tools/call, without the service: the fresh server and stateless
// transport that src/mcp/endpoint.ts makes for each call, handed a fetch Request made as the edge's
// adapter makes it, answering with the twin's body after `inFlightMs` (the time the twin's own
// requests spend in flight under the same load), `connections` calls at once. An MCP call costs at
// least its twin plus this, so it bounds the ratio of the two.
//
//   node <the service's Node flags> --import tsx bench/mcp-sdk.ts <twin body file> <inFlightMs> <seconds> <connections>
//
// Prints {"calls": n, "cpuMicros": µs of CPU per call} as one JSON line.
import { readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { createServerAdapter, Response } from '@whatwg-node/server';
import { MCP_HEADERS, toolCall } from './targets.js';

const [bodyFile, inFlightText, secondsText, connectionsText] = process.argv.slice(2);
const twinBody = readFileSync(bodyFile!, 'utf8');
const [inFlightMs, seconds, connections] = [Number(inFlightText), Number(secondsText), Number(connectionsText)];

/** the bench's MCP target's call */
const { body } = toolCall('get_latest_rates', {});

/** one for every call, as the endpoint has */
const validator = new AjvJsonSchemaValidator();

const adapter = createServerAdapter(async (request) => {
  const server = new Server({ name: 'bench', version: '0' }, { capabilities: { tools: {} }, jsonSchemaValidator: validator });
  server.setRequestHandler(CallToolRequestSchema, async () => {
    await new Promise((resolve) => setTimeout(resolve, inFlightMs));
    return { content: [{ type: 'text', text: twinBody }], structuredContent: JSON.parse(twinBody) as Record<string, unknown> };
  });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(request, { parsedBody: JSON.parse(await request.text()) as JSONRPCMessage });
    return new Response(await response.text(), { status: response.status });
  } finally {
    await server.close();
  }
});

async function call(): Promise<void> {
  const response = await adapter.fetch('http://bench/mcp', { method: 'POST', headers: MCP_HEADERS, body });
  const answer = JSON.parse(await response.text()) as { result?: { isError?: boolean } };
  if (!answer.result || answer.result.isError) throw new Error(`the call failed: ${JSON.stringify(answer)}`);
}

async function load(forMs: number): Promise<number> {
  const end = performance.now() + forMs;
  let calls = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        await call();
        calls++;
      }
    }),
  );
  return calls;
}

await load(1_000);
const cpu = process.cpuUsage();
const calls = await load(seconds * 1_000);
const used = process.cpuUsage(cpu);
console.log(JSON.stringify({ calls, cpuMicros: (used.user + used.system) / calls }));
