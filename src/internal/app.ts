// The internal GraphQL endpoint (D32): the whole schema, mutations included, for operators and
// tooling. It listens on its own loopback port and every request needs the operator token.
import { timingSafeEqual } from 'node:crypto';
import { Response, createServerAdapter } from '@whatwg-node/server';
import type { GraphQLSchema } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { createContext, type Services } from '../schema/context.js';

export const INTERNAL_GRAPHQL_PATH = '/graphql';

function sameToken(header: string | null, token: string): boolean {
  const sent = Buffer.from(/^Bearer (.+)$/.exec(header ?? '')?.[1] ?? '');
  const expected = Buffer.from(token);
  return sent.length === expected.length && timingSafeEqual(sent, expected);
}

export function createInternalApp(options: { schema: GraphQLSchema; services: Services; operatorToken: string }) {
  const yoga = createYoga({
    schema: options.schema,
    graphqlEndpoint: INTERNAL_GRAPHQL_PATH,
    landingPage: false,
    logging: false,
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
