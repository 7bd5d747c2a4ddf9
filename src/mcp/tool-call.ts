// A tool call answered by its twin route (D40 in docs/decisions.md). The tool's arguments are its
// twin's parameters: its input schema is made from the twin's own zod schemas, and a call becomes
// the twin's request (the path's parameters in its path, the others in its query string, as a REST
// client would write them), answered by the same steps as the REST endpoint once its key is known:
// the quota's headers, the limits (a success takes its unit exactly as the REST request would, D17,
// D36), the shared answers, freshness and the operation. Every refusal the twin can give is a tool result with
// `isError` whose text is the REST error envelope; an unknown tool is a JSON-RPC error.
import { ErrorCode, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { z, type ZodType } from 'zod';
import { BadRequestError } from '../errors.js';
import { Exchange, type Endpoint, type Next, type RestRequest, type Step } from '../rest/exchange.js';
import { Param, type NamedValues } from '../rest/params.js';
import type { Route } from '../rest/route.js';
import type { ToolDefinition } from './tools.js';

/** What a call gave: its twin's JSON body (or error envelope), and the status the twin would have answered with. */
export interface ToolOutcome {
  tool: string;
  status: number;
  result: CallToolResult;
}

interface PreparedTool {
  definition: ToolDefinition;
  route: Route;
  /** the twin as the steps see it */
  endpoint: Endpoint;
  /** the names the twin takes in its path */
  pathNames: readonly string[];
  /** every name it takes, its path's first */
  argumentNames: readonly string[];
}

const JSON_SCHEMA = { target: 'draft-7', unrepresentable: 'throw' } as const;

/**
 * A schema as an agent reads it: the REST document's descriptions without their references to the
 * project's own notes, and a list of codes or an amount in the JSON an agent writes (an array, a
 * number) as well as in the text of a query string.
 */
function forAgents(schema: ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const generated = z.toJSONSchema(schema, {
    ...JSON_SCHEMA,
    io,
    override: ({ zodSchema, jsonSchema }) => {
      if ((zodSchema as unknown) === Param.codes) Object.assign(jsonSchema, { type: ['array', 'string'], items: { type: 'string' } });
      if ((zodSchema as unknown) === Param.amount) Object.assign(jsonSchema, { type: ['number', 'string'] });
    },
  }) as Record<string, unknown>;
  delete generated.$schema;
  const { $ref, definitions, ...inline } = generated;
  // A schema with an id comes as a reference to itself among the definitions; a tool's must be the object itself.
  const defined = { ...(definitions as Record<string, Record<string, unknown>> | undefined) };
  const rootName = typeof $ref === 'string' ? $ref.slice('#/definitions/'.length) : undefined;
  const root = rootName === undefined ? inline : defined[rootName]!;
  if (rootName !== undefined) delete defined[rootName];
  const json = Object.keys(defined).length > 0 ? { ...root, definitions: defined } : root;
  return JSON.parse(JSON.stringify(json), (key, value: unknown) => {
    if (key !== 'description' || typeof value !== 'string') return value;
    const text = value.replace(/\s*\(D\d+(?:, D\d+)*\)/g, '').trim();
    return text.startsWith('docs/api.md') ? undefined : text;
  }) as Record<string, unknown>;
}

/** The twin's parameters, its path's first, as one object of arguments. */
const argumentsOf = (route: Route): NamedValues => z.object({ ...route.params?.shape, ...route.query?.shape });

/** An argument's JSON as its twin's parameter text: a list of codes comma-separated, a number as written. */
function argumentText(name: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value.join(',');
  throw new BadRequestError(`Argument '${name}' must be text, a number or a list of text, as its parameter of the REST API`);
}

/** The twin's request: GET of its path and query, on the connection the call came on. */
class TwinRequest implements RestRequest {
  readonly method = 'GET';
  readonly fetchRequest = null;
  constructor(
    readonly url: URL,
    private readonly call: RestRequest,
  ) {}
  header(): string | null {
    return null;
  }
  repeated(): boolean {
    return false;
  }
  body(): Promise<string> {
    return Promise.resolve('');
  }
  get remoteAddress(): string | undefined {
    return this.call.remoteAddress;
  }
  get encrypted(): boolean {
    return this.call.encrypted;
  }
}

/** The headers of the twin's answer that the call's HTTP answer carries too: the quota's, the stale data's, when to retry. */
const PASSED_ON = /^(X-RateLimit-|X-Data-Stale$|X-RBA-Source-Date$|Retry-After$)/;

export interface ToolCallOptions {
  definitions: readonly ToolDefinition[];
  table: readonly Route[];
  /** a route as the edge's endpoint (src/rest/pipeline.ts) */
  endpointOf(route: Route): Endpoint;
  /**
   * The twin's steps once its key is known, its refusals rendered as its envelope
   * (src/rest/pipeline.ts), with `checkArguments` first.
   */
  twinSteps(checkArguments: Step): Next;
}

export class ToolCalls {
  /** the answer to tools/list, made once */
  readonly list: { tools: Tool[] };
  private readonly tools = new Map<string, PreparedTool>();
  /** a call whose arguments make no request of its twin, and why: refused in the twin's place */
  private readonly faults = new WeakMap<Exchange, unknown>();
  private readonly answer: Next;

  constructor(options: ToolCallOptions) {
    this.answer = options.twinSteps((twin, next) => {
      if (this.faults.has(twin)) throw this.faults.get(twin) as Error;
      return next(twin);
    });
    for (const definition of options.definitions) {
      const route = options.table.find((r) => r.name === definition.twin);
      if (!route?.response || !route.respond) throw new Error(`Tool ${definition.name}: no documented route ${definition.twin} that answers JSON`);
      const pathNames = Object.keys(route.params?.shape ?? {});
      const argumentNames = Object.keys(argumentsOf(route).shape);
      this.tools.set(definition.name, { definition, route, endpoint: options.endpointOf(route), pathNames, argumentNames });
    }
    this.list = {
      tools: [...this.tools.values()].map(({ definition, route }) => ({
        name: definition.name,
        title: definition.title,
        description: definition.description,
        inputSchema: forAgents(argumentsOf(route), 'input') as Tool['inputSchema'],
        outputSchema: forAgents(route.response!, 'output') as Tool['outputSchema'],
        annotations: { title: definition.title, readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      })),
    };
  }

  /** Answers one tools/call of this exchange's key; the twin's quota and freshness headers go to the exchange's answer. */
  async call(name: string, args: Record<string, unknown>, exchange: Exchange): Promise<ToolOutcome> {
    const tool = this.tools.get(name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool '${name}': the tools are ${[...this.tools.keys()].join(', ')}`);
    let target: ReturnType<typeof twinTarget> | null = null;
    let fault: unknown = null;
    try {
      target = twinTarget(tool, args, exchange.request.url);
    } catch (error) {
      fault = error;
    }
    const twin = Object.assign(new Exchange(target ? new TwinRequest(target.url, exchange.request) : exchange.request, exchange.started), {
      requestId: exchange.requestId,
      peer: exchange.peer,
      https: exchange.https,
      endpoint: tool.endpoint,
      route: tool.route,
      params: target?.params ?? {},
      viewer: exchange.viewer,
      keyHolder: exchange.keyHolder,
    });
    if (target === null) this.faults.set(twin, fault);
    await this.answer(twin);
    exchange.shared = twin.shared;
    const { status, body, headers } = twin.answer!;
    for (const source of [twin.headers, headers]) for (const header in source) if (PASSED_ON.test(header)) exchange.headers[header] = source[header]!;
    const text = body as string;
    const result: CallToolResult =
      status < 400
        ? { content: [{ type: 'text', text }], structuredContent: JSON.parse(text) as Record<string, unknown> }
        : { content: [{ type: 'text', text }, ...retryNote(headers['Retry-After'])], isError: true };
    return { tool: name, status, result };
  }
}

/** The twin's URL and path parameters for these arguments. */
function twinTarget(tool: PreparedTool, args: Record<string, unknown>, base: URL): { url: URL; params: Record<string, string> } {
  const params: Record<string, string> = {};
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(args)) {
    if (!tool.argumentNames.includes(name)) {
      const takes = tool.argumentNames.length > 0 ? `it takes ${tool.argumentNames.join(', ')}` : 'it takes none';
      throw new BadRequestError(`Unknown argument '${name}' for ${tool.definition.name}: ${takes}`);
    }
    const text = argumentText(name, value);
    if (text === undefined) continue;
    if (tool.pathNames.includes(name)) params[name] = text;
    else search.set(name, text);
  }
  let path = tool.route.path;
  for (const name of tool.pathNames) {
    if (params[name] === undefined) throw new BadRequestError(`Missing required parameter '${name}'`);
    path = path.replace(`:${name}`, encodeURIComponent(params[name]));
  }
  const url = new URL(path, base);
  url.search = search.toString();
  return { url, params };
}

/** A refusal that says when to try again says so to the agent too, as Retry-After says it to a REST client. */
function retryNote(retryAfter: string | undefined): { type: 'text'; text: string }[] {
  return retryAfter === undefined ? [] : [{ type: 'text', text: `Try again in ${retryAfter} seconds.` }];
}
