// The dashboard: server-rendered pages under /dashboard on the public listener. Every action runs
// a GraphQL operation with the session's account as viewer, like the REST facade. Each page's
// handlers live in its own *-routes.ts beside its view; this module serves them as the edge's
// endpoints, with the static files and the page that renders a refusal.
import type { Refused } from '../http/error-status.js';
import { sessionTokenOf } from '../http/session-cookie.js';
import { plainEndpoint, type Answer, type Endpoint, type Exchange, type Fallback } from '../rest/exchange.js';
import { authenticateSession } from '../schema/session.js';
import { alertsDocuments, alertsRoutes } from './alerts-routes.js';
import { keysDocuments, keysRoutes } from './keys-routes.js';
import { MessagePage } from './layout.js';
import { overviewDocuments, overviewRoutes } from './overview-routes.js';
import { ASSETS, pageKit, STATIC_ASSETS, type DashboardOptions, type Handler } from './page-kit.js';
import { planDocuments, planRoutes } from './plan-routes.js';
import { reportsDocuments, reportsRoutes } from './reports-routes.js';
import { signInDocuments, signInRoutes } from './sign-in-routes.js';
import { usageDocuments, usageRoutes } from './usage-routes.js';
import { webhooksDocuments, webhooksRoutes } from './webhooks-routes.js';

export type { DashboardOptions } from './page-kit.js';

/** A page's title for a refusal's status. */
function refusalTitle(status: number): string {
  if (status === 401) return 'Signed out';
  if (status === 404) return 'Not found';
  if (status === 405) return 'Method not allowed';
  if (status === 429) return 'Too many requests';
  return status >= 500 ? 'Try again later' : 'Request refused';
}

/**
 * The dashboard's pages as endpoints of the edge's router (src/edge.ts), which has given the request
 * its id, its client and D20's verdict by the time a page runs, and the page that refuses an
 * address under /dashboard that no page has.
 */
export function dashboardEndpoints(options: DashboardOptions): { endpoints: Endpoint[]; fallback: Fallback } {
  const { executor, services, logger, planChange } = options;
  executor.check({
    ...signInDocuments,
    ...overviewDocuments,
    ...keysDocuments,
    ...usageDocuments,
    ...webhooksDocuments,
    ...alertsDocuments,
    ...reportsDocuments,
    ...planDocuments,
  });
  const kit = pageKit(options);
  /** Every page: its paths and what each method does. */
  const pages = {
    ...overviewRoutes(kit),
    ...signInRoutes(kit),
    ...keysRoutes(kit),
    ...usageRoutes(kit),
    ...webhooksRoutes(kit),
    ...alertsRoutes(kit),
    ...reportsRoutes(kit, logger),
    ...planRoutes(kit, planChange),
  };

  async function servePage(handler: Handler, exchange: Exchange): Promise<void> {
    const { request } = exchange;
    const cookie = sessionTokenOf(request.header('cookie'), exchange.https);
    const session = cookie ? await authenticateSession(services, cookie) : null;
    exchange.session = session;
    exchange.answer = await handler({
      request,
      url: request.url,
      peer: exchange.peer!,
      https: exchange.https,
      session,
      sessionToken: session ? cookie! : null,
    });
  }

  /**
   * A refusal as a page with the request's id, its status from the one table: a signed-in browser
   * is never sent a 401 (its account, not its sign-in, is refused) and a page asked for without a
   * session goes to the sign-in page.
   */
  function refusalPage(refused: Refused | null, exchange: Exchange): Answer {
    if (refused?.code === 'sign_in_required' && exchange.request.method === 'GET') return kit.redirect('/dashboard');
    const status = refused === null ? 503 : refused.status === 401 && exchange.session ? 403 : refused.status;
    const message = refused?.info ?? 'The dashboard could not answer just now. Try again in a moment.';
    const headers: Record<string, string> = { ...refused?.headers };
    delete headers['WWW-Authenticate']; // the dashboard signs in with a link, not a scheme
    return kit.page(status, MessagePage({ assets: ASSETS, title: refusalTitle(status), message, requestId: exchange.requestId }), headers);
  }

  const endpoint = (method: 'GET' | 'POST', path: string, serve: Endpoint['serve']): Endpoint => plainEndpoint(method, path, serve, refusalPage);
  const pageEndpoints = Object.entries(pages).flatMap(([path, methods]) =>
    (Object.entries(methods) as ['GET' | 'POST', Handler][]).map(([method, handler]) => endpoint(method, path, (exchange) => servePage(handler, exchange))),
  );
  const assetEndpoints = [...STATIC_ASSETS].map(([path, asset]) =>
    endpoint('GET', path, (exchange) => {
      exchange.answer = {
        status: 200,
        body: asset.body,
        headers: { 'Content-Type': asset.type, 'Cache-Control': 'public, max-age=31536000, immutable', 'X-Content-Type-Options': 'nosniff' },
      };
      return Promise.resolve();
    }),
  );
  return {
    endpoints: [...pageEndpoints, ...assetEndpoints],
    fallback: { prefix: '/dashboard/', render: refusalPage, notFound: 'There is no dashboard page at this address.' },
  };
}
