// The internal port (D32 in docs/decisions.md): the whole schema over GraphQL, mutations included,
// for operators and tooling, with GraphiQL, the metrics, the embedded database's backup and the
// readiness check. It listens on its own loopback port through the same edge as the public listener
// (src/edge.ts `internalSteps`), with these endpoints; every request but the readiness check, GraphiQL's page
// and the sign-in form (which hold no data) needs the operator token, as a bearer token or the
// session cookie a browser gets by signing in. Its refusals are in GraphQL's shape.
import type { Logger } from 'pino';
import { BadRequestError, ConflictError, UnauthorizedError } from '../errors.js';
import { ERROR_STATUS, type Refused } from '../http/error-status.js';
import { compose } from '../rest/compose.js';
import { fetchRequestOf, plainEndpoint, type Answer, type Endpoint, type Exchange, type Method, type Next, type Step } from '../rest/exchange.js';
import type { GraphQLSchema } from 'graphql';
import type { Services } from '../services.js';
import { graphiqlPage, GRAPHIQL_CSP, SIGN_IN_PATH, signInPage } from './graphiql.js';
import { OperatorAuth } from './operator-auth.js';
import { BACKUP_PATH } from './paths.js';
import type { Readiness } from './readiness.js';
import { READY_PATH } from './readiness.js';
import type { InternalYoga } from './yoga.js';

export const INTERNAL_GRAPHQL_PATH = '/graphql';
export const METRICS_PATH = '/metrics';

export interface InternalAppOptions {
  schema: GraphQLSchema;
  services: Services;
  operatorToken: string;
  logger: Logger;
  readiness: Readiness;
  /** the embedded database's copy (src/db/connect.ts); null on a Postgres server */
  snapshot?: (() => Promise<Blob>) | null;
}

const SIGN_IN_BODY_BYTES = 4096;

const JSON_HEADERS = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' };

/** A refusal as GraphQL over HTTP says it: `errors` with the message and its code. */
export function graphqlRefusal(refused: Refused | null, exchange: Exchange): Answer {
  const code = refused?.code ?? 'service_unavailable';
  const message = refused?.info ?? `The service could not answer this request; try again later (request ${exchange.requestId})`;
  return {
    status: refused?.status ?? ERROR_STATUS.service_unavailable,
    body: JSON.stringify({ errors: [{ message, extensions: { code } }] }),
    headers: { ...refused?.headers, ...JSON_HEADERS },
  };
}

const html = (body: string, status = 200, headers: Record<string, string> = {}): Answer => ({
  status,
  body,
  headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', ...headers },
});

/** A fetch Response (yoga's) as the edge's answer. */
async function answerOf(response: Response): Promise<Answer> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  // the edge writes the length of what it sends
  delete headers['content-length'];
  return { status: response.status, body: response.status === 204 ? null : await response.text(), headers };
}

/** A browser navigating to the page (GraphQL clients ask for JSON). */
const wantsHtml = (exchange: Exchange) => (exchange.request.header('accept') ?? '').includes('text/html');

export function internalEndpoints(options: InternalAppOptions): Endpoint[] {
  // Loaded on the first operation, not at start-up: yoga and its plugins are a good part of a
  // start's module loading, and the public API never needs them.
  let yoga: Promise<InternalYoga> | null = null;
  const internalYoga = () =>
    (yoga ??= import('./yoga.js').then(({ createInternalYoga }) =>
      createInternalYoga(options.schema, options.services, INTERNAL_GRAPHQL_PATH, options.logger),
    ));
  const auth = new OperatorAuth(options.operatorToken);

  /** The operator token, as a bearer token or the session cookie; one Authorization header only. */
  const operatorOnly: Step = (exchange, next) => {
    const { request } = exchange;
    if (request.header('authorization') !== null && request.repeated('authorization')) throw new BadRequestError('Send one Authorization header, not several');
    if (!auth.allows(request.header('authorization'), request.header('cookie'))) {
      throw new UnauthorizedError(`Operator token required: send it as a bearer token, or sign in at ${SIGN_IN_PATH} on this port`);
    }
    return next(exchange);
  };

  const graphql: Next = async (exchange) => {
    exchange.answer = await answerOf(await (await internalYoga()).fetch(fetchRequestOf(exchange.request)));
  };

  const endpoint = (method: Method, path: string, serve: Next, token = true): Endpoint =>
    plainEndpoint(method, path, token ? compose([operatorOnly, serve]) : serve, graphqlRefusal);

  const endpoints: Endpoint[] = [
    endpoint('GET', READY_PATH, (exchange) => ((exchange.answer = options.readiness.answer()), Promise.resolve()), false),
    endpoint('GET', SIGN_IN_PATH, async (exchange) => void (exchange.answer = html(signInPage(INTERNAL_GRAPHQL_PATH))), false),
    endpoint(
      'POST',
      SIGN_IN_PATH,
      async (exchange) => {
        const length = Number(exchange.request.header('content-length') ?? 'NaN');
        if (!(length <= SIGN_IN_BODY_BYTES)) {
          exchange.answer = html(signInPage(INTERNAL_GRAPHQL_PATH, 'The form was too large or sent without a length'), 413);
          return;
        }
        const token = new URLSearchParams(await exchange.request.body(SIGN_IN_BODY_BYTES)).get('token') ?? '';
        exchange.answer = auth.isToken(token)
          ? { status: 303, body: null, headers: { Location: INTERNAL_GRAPHQL_PATH, 'Set-Cookie': auth.sessionCookie(), 'Cache-Control': 'no-store' } }
          : html(signInPage(INTERNAL_GRAPHQL_PATH, 'That is not the operator token'), 401);
      },
      false,
    ),
    // GraphiQL's page for a browser, which holds no data; a GraphQL client's GET is an operation
    endpoint(
      'GET',
      INTERNAL_GRAPHQL_PATH,
      async (exchange) => {
        if (wantsHtml(exchange)) exchange.answer = html(await graphiqlPage(INTERNAL_GRAPHQL_PATH), 200, { 'Content-Security-Policy': GRAPHIQL_CSP });
        else await compose([operatorOnly, graphql])(exchange);
      },
      false,
    ),
    endpoint('POST', INTERNAL_GRAPHQL_PATH, graphql),
    endpoint('GET', METRICS_PATH, async (exchange) => {
      const { registry } = options.services.metrics;
      exchange.answer = { status: 200, body: await registry.metrics(), headers: { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' } };
    }),
    endpoint('POST', BACKUP_PATH, async (exchange) => {
      if (!options.snapshot)
        throw new ConflictError('The service runs on a PostgreSQL server: back it up with pg_dump, as the operations guide describes under Backups');
      const started = performance.now();
      const copy = await options.snapshot();
      options.logger.info({ bytes: copy.size, ms: Math.round(performance.now() - started) }, 'backup: the embedded database copied');
      exchange.answer = {
        status: 200,
        body: new Uint8Array(await copy.arrayBuffer()),
        headers: { 'Content-Type': 'application/gzip', 'Cache-Control': 'no-store' },
      };
    }),
  ];

  return endpoints;
}
