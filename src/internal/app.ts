// The internal GraphQL endpoint (D32 in docs/decisions.md): the whole schema, mutations included,
// for operators and tooling. It listens on its own loopback port and every request needs the
// operator token (as a bearer token, or the session cookie a browser gets by signing in); only
// GraphiQL's page and the sign-in form, which hold no data, load without it.
import { Response, createServerAdapter } from '@whatwg-node/server';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import type { Services } from '../services.js';
import { graphiqlPage, GRAPHIQL_CSP, SIGN_IN_PATH, signInPage } from './graphiql.js';
import { OperatorAuth } from './operator-auth.js';
import { BACKUP_PATH } from './paths.js';
import type { InternalYoga } from './yoga.js';

export const INTERNAL_GRAPHQL_PATH = '/graphql';
export const METRICS_PATH = '/metrics';

export interface InternalAppOptions {
  schema: GraphQLSchema;
  services: Services;
  operatorToken: string;
  logger: Logger;
  /** the embedded database's copy (src/db/connect.ts); null on a Postgres server */
  snapshot?: (() => Promise<Blob>) | null;
}

export function createInternalApp(options: InternalAppOptions) {
  // Loaded on the first operation, not at start-up: yoga and its plugins are a good part of a
  // start's module loading, and the public API never needs them.
  let yoga: Promise<InternalYoga> | null = null;
  const internalYoga = () =>
    (yoga ??= import('./yoga.js').then(({ createInternalYoga }) =>
      createInternalYoga(options.schema, options.services, INTERNAL_GRAPHQL_PATH, options.logger),
    ));
  const auth = new OperatorAuth(options.operatorToken);
  const html = (body: string, status = 200, headers: Record<string, string> = {}) =>
    new Response(body, { status, headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', ...headers } });

  async function signIn(request: Request): Promise<Response> {
    if (request.method === 'GET') return html(signInPage(INTERNAL_GRAPHQL_PATH));
    if (request.method !== 'POST') return new Response(null, { status: 405, headers: { Allow: 'GET, POST' } });
    const length = Number(request.headers.get('content-length') ?? 'NaN');
    if (!(length <= SIGN_IN_BODY_BYTES)) return html(signInPage(INTERNAL_GRAPHQL_PATH, 'The form was too large or sent without a length'), 413);
    const token = new URLSearchParams(await request.text()).get('token') ?? '';
    if (!auth.isToken(token)) return html(signInPage(INTERNAL_GRAPHQL_PATH, 'That is not the operator token'), 401);
    return new Response(null, { status: 303, headers: { Location: INTERNAL_GRAPHQL_PATH, 'Set-Cookie': auth.sessionCookie(), 'Cache-Control': 'no-store' } });
  }

  // A fault no branch foresaw is logged and answered 503 in GraphQL's shape, never with a stack trace.
  return createServerAdapter(async (request: Request) => {
    try {
      return await answer(request);
    } catch (error) {
      options.logger.error({ err: error, path: new URL(request.url).pathname }, 'internal request failed');
      return new Response(
        JSON.stringify({ errors: [{ message: 'The service could not answer this request; try again later', extensions: { code: 'service_unavailable' } }] }),
        {
          status: 503,
          headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' },
        },
      );
    }
  });

  async function answer(request: Request): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === SIGN_IN_PATH) return signIn(request);
    if (pathname === INTERNAL_GRAPHQL_PATH && request.method === 'GET' && wantsHtml(request)) {
      return html(await graphiqlPage(INTERNAL_GRAPHQL_PATH), 200, { 'Content-Security-Policy': GRAPHIQL_CSP });
    }
    if (!auth.allows(request)) {
      return new Response(
        JSON.stringify({
          errors: [
            { message: `Operator token required: send it as a bearer token, or sign in at ${SIGN_IN_PATH} on this port`, extensions: { code: 'unauthorized' } },
          ],
        }),
        { status: 401, headers: { 'Content-Type': 'application/json', 'WWW-Authenticate': 'Bearer' } },
      );
    }
    if (pathname === METRICS_PATH) return metrics(request);
    if (pathname === BACKUP_PATH) return backup(request);
    return (await internalYoga()).fetch(request);
  }

  async function backup(request: Request): Promise<Response> {
    if (request.method !== 'POST') return new Response(null, { status: 405, headers: { Allow: 'POST' } });
    if (!options.snapshot) {
      const message = 'The service runs on a PostgreSQL server: back it up with pg_dump (docs/operations.md, Backups)';
      return new Response(JSON.stringify({ error: message }), { status: 409, headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' } });
    }
    const started = performance.now();
    const copy = await options.snapshot();
    options.logger.info({ bytes: copy.size, ms: Math.round(performance.now() - started) }, 'backup: the embedded database copied');
    return new Response(new Uint8Array(await copy.arrayBuffer()), { headers: { 'Content-Type': 'application/gzip', 'Cache-Control': 'no-store' } });
  }

  async function metrics(request: Request): Promise<Response> {
    if (request.method !== 'GET') return new Response(null, { status: 405, headers: { Allow: 'GET' } });
    const { registry } = options.services.metrics;
    return new Response(await registry.metrics(), { headers: { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' } });
  }
}

const SIGN_IN_BODY_BYTES = 4096;

/** A browser navigating to the page (GraphQL clients ask for JSON). */
function wantsHtml(request: Request): boolean {
  return (request.headers.get('accept') ?? '').includes('text/html');
}
