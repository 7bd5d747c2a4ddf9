// The internal GraphQL endpoint (D32): the whole schema, mutations included, for operators and
// tooling. It listens on its own loopback port and every request needs the operator token.
import { timingSafeEqual } from 'node:crypto';
import { Response, createServerAdapter } from '@whatwg-node/server';
import type { GraphQLSchema } from 'graphql';
import { costLimitPlugin } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { createGraphQLError, createYoga, type Plugin } from 'graphql-yoga';
import { decodeUtf8, NOT_UTF8 } from '../domain/text.js';
import { createContext, type Services } from '../schema/context.js';

export const INTERNAL_GRAPHQL_PATH = '/graphql';

function sameToken(header: string | null, token: string): boolean {
  const sent = Buffer.from(/^Bearer (.+)$/.exec(header ?? '')?.[1] ?? '');
  const expected = Buffer.from(token);
  return sent.length === expected.length && timingSafeEqual(sent, expected);
}

/**
 * Request bodies read as strict UTF-8: yoga's own reading puts U+FFFD where bytes are not UTF-8,
 * and a mutation would store that. Text that decodes but holds NUL or a lone surrogate (JSON
 * escapes) is the Text scalar's to refuse.
 */
const strictUtf8Bodies: Plugin = {
  onRequestParse({ request, requestParser, setRequestParser, fetchAPI }) {
    if (request.method !== 'POST' || !requestParser) return;
    setRequestParser(async (sent) => {
      const text = decodeUtf8(new Uint8Array(await sent.arrayBuffer()));
      if (text === null) {
        throw createGraphQLError(`The request body ${NOT_UTF8}`, { extensions: { code: 'bad_request', http: { status: 400 } } });
      }
      return requestParser(new fetchAPI.Request(sent.url, { method: sent.method, headers: sent.headers, body: text }));
    });
  },
};

/**
 * What one operation may ask for, checked before it runs. The deepest operation the schema's own
 * tooling needs is 6 levels; introspection is measured separately by the plugins (GraphiQL's is deep).
 */
export const OPERATION_LIMITS = { depth: 10, cost: 5_000, aliases: 15 };

const guards: Plugin[] = [
  maxDepthPlugin({ n: OPERATION_LIMITS.depth, exposeLimits: true }),
  costLimitPlugin({ maxCost: OPERATION_LIMITS.cost, exposeLimits: true }),
  maxAliasesPlugin({ n: OPERATION_LIMITS.aliases, exposeLimits: true }),
];

export function createInternalApp(options: { schema: GraphQLSchema; services: Services; operatorToken: string }) {
  const yoga = createYoga({
    schema: options.schema,
    graphqlEndpoint: INTERNAL_GRAPHQL_PATH,
    landingPage: false,
    logging: false,
    plugins: [strictUtf8Bodies, ...guards],
    context: () => createContext(options.services, { operator: true }),
  });
  return createServerAdapter((request: Request) => {
    if (!sameToken(request.headers.get('authorization'), options.operatorToken)) {
      return new Response(JSON.stringify({ errors: [{ message: 'Operator token required', extensions: { code: 'unauthorized' } }] }), {
        status: 401,
        headers: { 'Content-Type': 'application/json', 'WWW-Authenticate': 'Bearer' },
      });
    }
    return yoga.fetch(request);
  });
}
