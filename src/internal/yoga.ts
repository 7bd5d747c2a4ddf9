// The internal endpoint's GraphQL server (src/internal/app.ts loads this module on its first
// operation): yoga over the whole schema with the operator as the viewer, strict UTF-8 bodies and
// the operation limits.
import { GraphQLError, type GraphQLSchema } from 'graphql';
import { createGraphQLError, createYoga, maskError, type Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { decodeUtf8, NOT_UTF8 } from '../domain/text.js';
import { DomainError } from '../errors.js';
import { HttpError } from '../http/http-errors.js';
import { createContext, OPERATOR } from '../schema/context.js';
import type { Services } from '../services.js';
import { operationLimitPlugins } from './limits.js';

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

export function createInternalYoga(schema: GraphQLSchema, services: Services, graphqlEndpoint: string, logger: Logger) {
  return createYoga({
    schema,
    graphqlEndpoint,
    landingPage: false,
    graphiql: false, // src/internal/app.ts serves it, from the package rather than a CDN
    logging: false,
    // A domain error (or a rate limit) is an answer (its message and extensions.code are shown);
    // anything else is a fault, masked as yoga masks it and logged, since the answer no longer says
    // what it was.
    maskedErrors: {
      maskError: (error, message, isDev) => {
        if (error instanceof GraphQLError && (error.originalError instanceof DomainError || error.originalError instanceof HttpError)) return error;
        const masked = maskError(error, message, isDev);
        if (masked !== error) {
          const fault = error instanceof GraphQLError ? (error.originalError ?? error) : error;
          logger.error({ err: fault, path: error instanceof GraphQLError ? error.path : undefined }, 'internal operation failed');
        }
        return masked;
      },
    },
    plugins: [strictUtf8Bodies, ...operationLimitPlugins],
    context: () => createContext(services, OPERATOR),
  });
}

export type InternalYoga = ReturnType<typeof createInternalYoga>;
