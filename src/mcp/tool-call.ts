// A tool call answered by its twin route (D40 in docs/decisions.md): the arguments become the
// twin's request, its operation runs with the key's viewer, its `respond` makes the body, and a
// success takes its unit exactly as the REST request would (D17, D36: granted, and committed, before
// the answer leaves; 429 last, as D11 orders). Every refusal the twin can give is a tool result with
// `isError` whose text is the REST error envelope; an unknown tool is a JSON-RPC error.
import { ErrorCode, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { z, type ZodError, type ZodType } from 'zod';
import { BadRequestError } from '../errors.js';
import { stringify } from '../json.js';
import type { Exchange } from '../rest/exchange.js';
import type { RequestLimits } from '../rest/limits.js';
import type { Route } from '../rest/route.js';
import { refusalOf } from '../http/error-status.js';
import { envelopeOf } from '../rest/steps/errors.js';
import { staleHeaders } from '../rest/steps/freshness.js';
import type { RouteRunner, SentRequest } from '../rest/steps/operation.js';
import type { ArgumentValue, ToolArgument, ToolDefinition } from './tools.js';

/** What a call gave: its twin's JSON body (or error envelope), and the status the twin would have answered with. */
export interface ToolOutcome {
  tool: string;
  status: number;
  text: string;
  isError: boolean;
}

/**
 * The call's result as JSON text: the twin's body as text and, on success, as the structured
 * content too. Written around the body's text so that a large body is not parsed and written again.
 */
export function resultJsonOf({ text, isError }: ToolOutcome): string {
  const content = `[{"type":"text","text":${JSON.stringify(text)}}]`;
  return isError ? `{"content":${content},"isError":true}` : `{"content":${content},"structuredContent":${text}}`;
}

/** The same result as the SDK's server returns it. */
export const resultOf = (outcome: ToolOutcome) => JSON.parse(resultJsonOf(outcome)) as CallToolResult;

interface PreparedTool {
  definition: ToolDefinition;
  route: Route;
  input: ZodType<Record<string, ArgumentValue | undefined>>;
}

export interface ToolCallOptions {
  definitions: readonly ToolDefinition[];
  table: readonly Route[];
  run: RouteRunner;
  limits: Pick<RequestLimits, 'admit' | 'standing'>;
  clock: () => Date;
  logger: Logger;
}

const JSON_SCHEMA = { target: 'draft-7', unrepresentable: 'throw' } as const;

/**
 * The twin's response schema as an agent reads it: the REST document's descriptions without their
 * references to the project's own notes (decision numbers, docs/api.md sections).
 */
function forAgents(schema: ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const generated = z.toJSONSchema(schema, { ...JSON_SCHEMA, io }) as Record<string, unknown>;
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

/** The first problem with the arguments, named as the tool's description names them. */
function argumentFault(error: ZodError, tool: ToolDefinition, args: unknown): string {
  const issue = error.issues[0]!;
  const expected = Object.keys(tool.arguments);
  if (issue.code === 'unrecognized_keys') {
    const takes = expected.length > 0 ? `it takes ${expected.join(', ')}` : 'it takes none';
    return `Unknown argument '${issue.keys[0]}' for ${tool.name}: ${takes}`;
  }
  const name = issue.path[0];
  const argument = typeof name === 'string' ? tool.arguments[name] : undefined;
  if (typeof name !== 'string' || !argument) return `The arguments of ${tool.name} must be an object`;
  return typeof args === 'object' && args !== null && !(name in args)
    ? `Argument '${name}' is required: ${argument.expects}`
    : `Argument '${name}' must be ${argument.expects}`;
}

/** The arguments as the twin's request: its path parameters, and its query as the REST client would write it. */
function twinRequest(tool: ToolDefinition, args: Record<string, ArgumentValue | undefined>): SentRequest {
  const params: Record<string, string> = {};
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(',') : String(value);
    if (tool.arguments[name]!.inPath) params[name] = text;
    else search.set(name, text);
  }
  return { params, search, body: null };
}

const inputOf = (args: Readonly<Record<string, ToolArgument>>) =>
  z.strictObject(Object.fromEntries(Object.entries(args).map(([name, a]) => [name, a.required ? a.schema : a.schema.optional()])));

const isQuotaHeader = (name: string) => name.startsWith('X-RateLimit-');

export class ToolCalls {
  /** the answer to tools/list, made once */
  readonly list: { tools: Tool[] };
  private readonly tools = new Map<string, PreparedTool>();

  constructor(private readonly options: ToolCallOptions) {
    for (const definition of options.definitions) {
      const route = options.table.find((r) => r.name === definition.twin);
      if (!route?.doc) throw new Error(`Tool ${definition.name}: no documented route ${definition.twin}`);
      this.tools.set(definition.name, { definition, route, input: inputOf(definition.arguments) });
    }
    this.list = {
      tools: [...this.tools.values()].map(({ definition, route, input }) => ({
        name: definition.name,
        title: definition.title,
        description: definition.description,
        inputSchema: forAgents(input, 'input') as Tool['inputSchema'],
        outputSchema: forAgents(route.doc!.response, 'output') as Tool['outputSchema'],
        annotations: { title: definition.title, readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      })),
    };
  }

  /** whether a tool of this name exists */
  has(name: string): boolean {
    return this.tools.has(name);
  }

  /** Answers one tools/call of this exchange's key; the X-RateLimit-* headers go to the exchange's answer. */
  async call(name: string, args: unknown, exchange: Exchange): Promise<ToolOutcome> {
    const tool = this.tools.get(name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool '${name}': the tools are ${[...this.tools.keys()].join(', ')}`);
    const viewer = exchange.viewer!;
    try {
      const parsed = tool.input.safeParse(args ?? {});
      if (!parsed.success) throw new BadRequestError(argumentFault(parsed.error, tool.definition, args));
      const { request, data, context } = await this.options.run(tool.route, twinRequest(tool.definition, parsed.data), viewer);
      const { body, status = 200 } = tool.route.respond(data, request);
      const text = stringify(body);
      Object.assign(exchange.headers, await this.options.limits.admit(tool.route, viewer, exchange.peer!.client));
      if (tool.route.rates) Object.assign(exchange.headers, staleHeaders(await context.rates.history(), this.options.clock()));
      return { tool: name, status, text, isError: false };
    } catch (error) {
      const refused = refusalOf(error);
      if (refused === null) this.options.logger.error({ err: error, requestId: exchange.requestId, tool: name }, 'tool call failed');
      const answer = envelopeOf(refused, exchange);
      // As the twin's refusal: it says where the quota stands (a 429 says so itself).
      const quota = Object.keys(answer.headers).some(isQuotaHeader) ? answer.headers : await this.options.limits.standing(tool.route, viewer);
      for (const header in quota) if (isQuotaHeader(header)) exchange.headers[header] = quota[header]!;
      return { tool: name, status: answer.status, text: answer.body as string, isError: true };
    }
  }
}
