// What every page's handlers share: the request as a page sees it, running a GraphQL operation with
// the session's account as viewer (like the REST facade), answering with a page or a redirect, and
// the checks of a state-changing form (same origin, CSRF token).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { stringifySetCookie } from 'cookie';
import type { VNode } from 'preact';
import type { Logger } from 'pino';
import type { Account } from '../db/database.js';
import { BadRequestError, ForbiddenError, SignInRequiredError } from '../errors.js';
import { csrfTokenOf, isCsrfTokenOf, sessionCookieName } from '../http/session-cookie.js';
import type { TadaDocumentNode } from '../graphql.js';
import type { Peer } from '../rest/client-address.js';
import type { Answer, RestRequest } from '../rest/exchange.js';
import { ANONYMOUS, type SessionViewer } from '../schema/context.js';
import { VariableRefusedError, type Executor } from '../schema/executor.js';
import type { Services } from '../services.js';
import { renderPage, type PageAssets, type SignedInFrame } from './layout.js';
import type { PlanChangeContact } from './plan-page.js';

export interface DashboardOptions {
  executor: Executor;
  services: Services;
  logger: Logger;
  /** where the Plan page sends a customer who wants another plan */
  planChange: PlanChangeContact;
}

/** form bodies: far more than any field needs, far less than could hurt */
const MAX_FORM_BYTES = 16 * 1024;

/** A file served under a name with its content's hash, so it can be cached for a year. */
export interface StaticAsset {
  path: string;
  body: string;
  type: string;
}

function staticAsset(file: string, type: string): StaticAsset {
  const body = readFileSync(new URL(file, import.meta.url), 'utf8');
  const [name, extension] = file.slice(2).split('.');
  return { path: `/dashboard/static/${name}-${createHash('sha256').update(body).digest('hex').slice(0, 16)}.${extension}`, body, type };
}

const STYLESHEET = staticAsset('./style.css', 'text/css; charset=utf-8');
const SCRIPT = staticAsset('./copy.js', 'text/javascript; charset=utf-8');
const ICON = staticAsset('./favicon.svg', 'image/svg+xml');
/** Browsers ask for the icon here whatever a page links; the pages link the hashed copy. */
const FAVICON_PATH = '/favicon.ico';
export const STATIC_ASSETS = new Map([...[STYLESHEET, SCRIPT, ICON].map((asset) => [asset.path, asset] as const), [FAVICON_PATH, ICON] as const]);
export const ASSETS: PageAssets = { stylesheet: STYLESHEET.path, script: SCRIPT.path, icon: ICON.path };

const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'Cache-Control': 'no-store',
  // The sign-in pages carry a token in their address: no page tells another site where it came from.
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
};

export interface DashboardRequest {
  request: RestRequest;
  url: URL;
  peer: Peer;
  https: boolean;
  session: SessionViewer | null;
  /** the cookie's token, when it named a live session */
  sessionToken: string | null;
}

export type Handler = (req: DashboardRequest) => Promise<Answer>;
/** A page's paths and what each method does there. */
export type PageRoutes = Record<string, Partial<Record<'GET' | 'POST', Handler>>>;

/** The helpers of every page's handlers, bound to the dashboard's executor and services. */
export type PageKit = ReturnType<typeof pageKit>;

export function pageKit({ executor, services }: DashboardOptions) {
  async function run<Result, Variables>(document: TadaDocumentNode<Result, Variables>, variables: Variables, session: SessionViewer | null): Promise<Result> {
    try {
      return (await executor.run(document, variables, session ?? ANONYMOUS)).data;
    } catch (error) {
      // A form can make a variable the schema refuses only with text the store cannot hold (a NUL, for one).
      if (error instanceof VariableRefusedError)
        throw new BadRequestError('A field holds text that cannot be stored (such as a NUL character). Remove it and try again.');
      throw error;
    }
  }

  const page = (status: number, node: VNode, headers: Record<string, string> = {}): Answer => ({
    status,
    body: renderPage(node),
    headers: { ...PAGE_HEADERS, ...headers },
  });
  const redirect = (location: string, headers: Record<string, string> = {}): Answer => ({
    status: 303,
    body: null,
    headers: { Location: location, 'Cache-Control': 'no-store', ...headers },
  });

  const sessionCookie = (https: boolean, token: string, maxAge: number) =>
    stringifySetCookie(sessionCookieName(https), token, { path: '/', httpOnly: true, sameSite: 'lax', secure: https, maxAge });

  function frameOf(req: DashboardRequest, account: Pick<Account, 'email' | 'status'>, current: SignedInFrame['current']): SignedInFrame {
    return { email: account.email, status: account.status, csrfToken: csrfTokenOf(req.sessionToken!), current };
  }

  /**
   * A state-changing request must come from the dashboard's own pages. A browser's fetch metadata
   * says so outright; without it, the Origin must be ours. (From a page with no-referrer, Chromium
   * sends `Origin: null` even to the same origin, so that value decides nothing on its own.)
   */
  function checkSameOrigin(req: DashboardRequest): void {
    const refused = () => new ForbiddenError('This form was sent from another site. Open the dashboard and try again.');
    const fetchSite = req.request.header('sec-fetch-site');
    if (fetchSite === 'same-origin' || fetchSite === 'none') return;
    if (fetchSite !== null) throw refused();
    const origin = req.request.header('origin');
    if (origin === null) return;
    const own = [new URL(services.publicUrl).origin, `${req.https ? 'https' : 'http'}://${req.request.header('host') ?? ''}`];
    if (!own.includes(origin)) throw refused();
  }

  async function formOf(req: DashboardRequest): Promise<URLSearchParams> {
    return new URLSearchParams(await req.request.body(MAX_FORM_BYTES));
  }

  function checkCsrf(req: DashboardRequest, form: URLSearchParams): SessionViewer {
    if (!req.session || !req.sessionToken) throw new SignInRequiredError('Your session has ended. Sign in again.');
    if (!isCsrfTokenOf(form.get('csrf') ?? '', req.sessionToken)) {
      throw new ForbiddenError('This form is out of date or was not sent by the dashboard. Reload the page and try again.');
    }
    return req.session;
  }

  /** A page that needs a session; without one the browser goes to the sign-in page (the refusal's rendering). */
  function signedIn(req: DashboardRequest): SessionViewer {
    if (!req.session) throw new SignInRequiredError('Sign in to see this page.');
    return req.session;
  }

  /** A state-changing form from a signed-in page: same origin, then the CSRF token. */
  async function signedInForm(req: DashboardRequest): Promise<{ session: SessionViewer; form: URLSearchParams }> {
    checkSameOrigin(req);
    const form = await formOf(req);
    return { session: checkCsrf(req, form), form };
  }

  return { services, run, page, redirect, sessionCookie, frameOf, checkSameOrigin, formOf, checkCsrf, signedIn, signedInForm };
}
