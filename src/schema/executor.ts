// The one way an operation runs in this process, for every caller in it: the REST routes and the MCP
// tools (src/rest/steps/operation.ts), the dashboard's pages and the operator CLI without a running
// service. Each run has a context of its own (createContext, with its viewer) that is released when
// the run ends. The internal port's GraphQL server (src/internal/yoga.ts) runs the same schema with
// the same context factory.
import {
  execute,
  GraphQLError,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
  type ValidationRule,
} from 'graphql';
import { BadRequestError } from '../errors.js';
import type { TadaDocumentNode } from '../graphql.js';
import type { Services } from '../services.js';
import { createContext, releaseContext, type Context, type Viewer } from './context.js';

/** A variable the schema refused while coercing it (text it cannot store, for one): the request's own fault, in GraphQL's words. */
export class VariableRefusedError extends BadRequestError {}

export interface Executor {
  /** Checks fixed documents against the schema once, at start-up: a bad one stops the service. */
  check(documents: Readonly<Record<string, DocumentNode>>): void;
  /**
   * Runs a fixed document (one that was checked) for a viewer: its data and the context it ran
   * with (whose rate history is the one the answer read). The first error is thrown: a resolver's own
   * error as it was thrown, a variable the schema refused as a 400.
   */
  run<Result, Variables>(document: TadaDocumentNode<Result, Variables>, variables: Variables, viewer: Viewer): Promise<{ data: Result; context: Context }>;
  /** An operation given as text (the operator's `query`): validated with `rules` too, its whole result returned. */
  runText(text: string, variables: Record<string, unknown> | undefined, viewer: Viewer, rules: readonly ValidationRule[]): Promise<ExecutionResult>;
}

/** Checks fixed documents against the schema; throws naming the first one that does not validate. */
export function checkDocuments(schema: GraphQLSchema, documents: Readonly<Record<string, DocumentNode>>): void {
  for (const [name, document] of Object.entries(documents)) {
    const errors = validate(schema, document);
    if (errors.length > 0) throw new Error(`Operation ${name}: ${errors.map((e) => e.message).join('; ')}`);
  }
}

export function createExecutor(schema: GraphQLSchema, services: Services): Executor {
  async function executeFor(document: DocumentNode, variables: Record<string, unknown> | undefined, viewer: Viewer) {
    const context = createContext(services, viewer);
    try {
      return { result: await execute({ schema, document, contextValue: context, variableValues: variables }), context };
    } finally {
      releaseContext(context);
    }
  }
  return {
    check: (documents) => checkDocuments(schema, documents),
    async run<Result, Variables>(document: TadaDocumentNode<Result, Variables>, variables: Variables, viewer: Viewer) {
      const { result, context } = await executeFor(document, variables as Record<string, unknown>, viewer);
      const error = result.errors?.[0];
      if (error) throw error.path === undefined ? new VariableRefusedError(error.message) : (error.originalError ?? error);
      return { data: result.data as Result, context };
    },
    async runText(text, variables, viewer, rules) {
      let document: DocumentNode;
      try {
        document = parse(text);
      } catch (error) {
        if (error instanceof GraphQLError) return { errors: [error] };
        throw error;
      }
      const invalid = validate(schema, document, [...specifiedRules, ...rules]);
      if (invalid.length > 0) return { errors: invalid };
      return (await executeFor(document, variables, viewer)).result;
    },
  };
}
