// The dashboard: server-rendered pages under /dashboard on the public listener. Every action runs
// a GraphQL operation with the session's account as viewer, like the REST facade; this module
// speaks HTTP (cookies, forms, CSRF, security headers) and renders pages.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { stringifySetCookie } from 'cookie';
import type { VNode } from 'preact';
import type { Logger } from 'pino';
import type { Account } from '../db/database.js';
import { CURRENCY_CODES, PUBLISHED_CODES } from '../domain/currencies.js';
import { PLAN_LIMITS, PLANS_WITH_ALERTS, PLANS_WITH_WEBHOOKS } from '../domain/plans.js';
import { BadRequestError, DomainError, ForbiddenError, NotFoundError, SignInRequiredError } from '../errors.js';
import type { Refused } from '../http/error-status.js';
import { csrfTokenOf, isCsrfTokenOf, sessionCookieName, sessionTokenOf } from '../http/session-cookie.js';
import { graphql, type ResultOf, type TadaDocumentNode, type VariablesOf } from '../graphql.js';
import type { Peer } from '../rest/client-address.js';
import type { Answer, Endpoint, Exchange, Fallback, RestRequest } from '../rest/exchange.js';
import { ANONYMOUS, type SessionViewer } from '../schema/context.js';
import { VariableRefusedError, type Executor } from '../schema/executor.js';
import type { Services } from '../services.js';
import { authenticateSession, isTokenShaped, SIGN_IN_LINK_MINUTES, SIGN_IN_PATH } from '../schema/session.js';
import {
  BadLinkPage,
  CheckEmailPage,
  ConfirmSignInPage,
  MessagePage,
  OverviewPage,
  SignInPage,
  renderPage,
  KeysPage,
  RevokeKeyPage,
  RestrictKeyPage,
  restrictionsForm,
  type KeysData,
  type RestrictionsForm,
  type PageAssets,
  type SignedInFrame,
} from './pages.js';
import { parseCurrencyList } from './currency-list.js';
import { inFormWords, restrictionsChange, sentRestrictions } from './key-restrictions-form.js';
import { UsagePage, type UsageData } from './usage-page.js';
import { PlanPage, type PlanChangeContact } from './plan-page.js';
import { Reports, type RunAverages } from './reports.js';
import { ReportsPage } from './reports-page.js';
import { AVERAGES, averagesCsv, averagesWorkbook, type AveragesResult } from '../rest/averages.js';
import type { StreamedBody } from '../rest/streamed-body.js';
import { AlertsPage, alertInWords, ConfirmPauseAlertPage, DeleteAlertPage, type AlertForm, type AlertsData, type AlertTestNotice } from './alerts-page.js';
import { ALERT_PAUSE_PATH } from '../mail/alert-links.js';
import { DeleteSubscriptionPage, inPlainWords, WebhooksPage, type CreateForm, type WebhooksData, type WebhooksNotice } from './webhooks-page.js';

export interface DashboardOptions {
  executor: Executor;
  services: Services;
  logger: Logger;
  /** where the Plan page sends a customer who wants another plan */
  planChange: PlanChangeContact;
}

/** Browsers ask for the icon here whatever a page links; the pages link the hashed copy. */
const FAVICON_PATH = '/favicon.ico';

/** form bodies: far more than any field needs, far less than could hurt */
const MAX_FORM_BYTES = 16 * 1024;
const SESSION_MAX_AGE_S = 30 * 24 * 3600;

/** A file served under a name with its content's hash, so it can be cached for a year. */
interface StaticAsset {
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
const STATIC_ASSETS = new Map([...[STYLESHEET, SCRIPT, ICON].map((asset) => [asset.path, asset] as const), [FAVICON_PATH, ICON] as const]);
const ASSETS: PageAssets = { stylesheet: STYLESHEET.path, script: SCRIPT.path, icon: ICON.path };

const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'Cache-Control': 'no-store',
  // The sign-in pages carry a token in their address: no page tells another site where it came from.
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
};

/** One period of the Usage page; unmasked, so the page reads its fields from the query's result. */
const PERIOD_USAGE = graphql(`
  fragment period on PeriodUsage @_unmask {
    from
    to
    totalRequests
    refusedRequests
    days {
      day
      requests
    }
    byEndpoint {
      endpoint
      requests
    }
    byKey {
      keyId
      prefix
      lastFour
      requests
    }
    byOutcome {
      outcome
      requests
    }
  }
`);

/** Every operation of the dashboard, typed from schema.graphql by the graphql tag (src/graphql.ts). */
const DOCUMENTS = {
  requestSignInLink: graphql('mutation($email: Text!, $client: Text!) { requestSignInLink(email: $email, client: $client) }'),
  signIn: graphql('mutation($token: Text!) { signIn(token: $token) { sessionToken } }'),
  signOut: graphql('mutation { signOut }'),
  overview: graphql(`
    query {
      sessionAccount {
        email
        plan
        status
        planLimits {
          name
          monthlyRequests
          resets
          apiKeys
          historyDays
          fullHistory
          timeSeriesDays
          webhookSubscriptions
        }
        quota {
          limit
          used
          remaining
          resetsAt
        }
        usage {
          current {
            refusedRequests
          }
        }
      }
      serviceStatus {
        state
        stale
        newestRateDate
        lastUpdate
        nextUpdateExpected
      }
    }
  `),
  keys: graphql(
    'query { sessionAccount { email status planLimits { name apiKeys } apiKeys { id prefix lastFour status createdAt lastUsedOn restrictions { allowedIps allowedEndpoints expiresOn monthlyCap capUsed } } } }',
  ),
  plan: graphql('query { sessionAccount { email status plan } }'),
  createKey: graphql('mutation($restrictions: KeyRestrictionsInput) { createSessionApiKey(restrictions: $restrictions) { key } }'),
  restrictKey: graphql(
    'mutation($id: Text!, $restrictions: KeyRestrictionsInput, $clear: Boolean) { restrictSessionApiKey(id: $id, restrictions: $restrictions, clear: $clear) { id } }',
  ),
  revokeKey: graphql('mutation($id: Text!) { revokeSessionApiKey(id: $id) { id } }'),
  usage: graphql(
    `
      query {
        sessionAccount {
          email
          status
          planLimits {
            name
            resets
          }
          quota {
            limit
            used
            remaining
            resetsAt
          }
          usage {
            current {
              ...period
            }
            previous {
              ...period
            }
          }
        }
      }
    `,
    [PERIOD_USAGE],
  ),
  webhooks: graphql(`
    query {
      sessionAccount {
        email
        status
        planLimits {
          name
        }
      }
      webhookSubscriptions {
        limit
        subscriptions {
          id
          url
          currencies
          description
          isActive
          failureCount
          lastSuccessAt
          createdAt
          recentDeliveries {
            deliveryId
            event
            rateDate
            attempt
            attemptedAt
            durationMs
            httpStatus
            error
            delivered
            nextAttemptAt
          }
        }
      }
    }
  `),
  createWebhook: graphql(`
    mutation ($input: CreateWebhookSubscriptionInput!) {
      createWebhookSubscription(input: $input) {
        signingSecret
        subscription {
          url
        }
      }
    }
  `),
  testWebhook: graphql('mutation($id: Text!) { testWebhookSubscription(id: $id) { delivered responseStatus message } }'),
  setWebhookActive: graphql('mutation($id: Text!, $isActive: Boolean!) { setWebhookSubscriptionActive(id: $id, isActive: $isActive) { id } }'),
  deleteWebhook: graphql('mutation($id: Text!) { deleteWebhookSubscription(id: $id) }'),
  redeliverWebhook: graphql(
    'mutation($id: Text!, $deliveryId: Text!) { redeliverWebhookDelivery(id: $id, deliveryId: $deliveryId) { id state attempts { status error } } }',
  ),
  alerts: graphql(`
    query {
      sessionAccount {
        email
        status
        plan
        planLimits {
          name
          webhookSubscriptions
        }
      }
      alerts {
        limit
        alerts {
          id
          currency
          condition
          value
          channels
          description
          isActive
          lastTriggeredAt
          triggerCount
          createdAt
        }
        recentFirings {
          alertId
          currency
          condition
          level
          date
          value
          previousDate
          previousValue
          firedAt
        }
      }
    }
  `),
  createAlert: graphql('mutation($input: CreateAlertInput!) { createAlert(input: $input) { id } }'),
  testAlert: graphql('mutation($id: Text!) { testAlert(id: $id) { email { sent message } webhooks { url delivered message } } }'),
  setAlertActive: graphql('mutation($id: Text!, $isActive: Boolean!) { setAlertActive(id: $id, isActive: $isActive) { id } }'),
  deleteAlert: graphql('mutation($id: Text!) { deleteAlert(id: $id) }'),
  pausableAlert: graphql('query($token: Text!) { pausableAlert(token: $token) { currency condition value isActive } }'),
  pauseAlertByLink: graphql('mutation($token: Text!) { pauseAlertByLink(token: $token) { currency condition value } }'),
  averages: AVERAGES,
};
type Operation = keyof typeof DOCUMENTS;
type DataOf<O extends Operation> = ResultOf<(typeof DOCUMENTS)[O]>;

/** The first plan with webhooks, which a plan without them is shown. */
const WEBHOOKS_UPGRADE = PLAN_LIMITS[PLANS_WITH_WEBHOOKS[0]!];
/** The first plan with alerts, which a plan without them is shown. */
const ALERTS_UPGRADE = PLAN_LIMITS[PLANS_WITH_ALERTS[0]!];
/** "every currency" today: every served code but the base */
const ALL_CURRENCIES = CURRENCY_CODES.length - 1;

interface DashboardRequest {
  request: RestRequest;
  url: URL;
  peer: Peer;
  https: boolean;
  session: SessionViewer | null;
  /** the cookie's token, when it named a live session */
  sessionToken: string | null;
}

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
export function dashboardEndpoints({ executor, services, logger, planChange }: DashboardOptions): { endpoints: Endpoint[]; fallback: Fallback } {
  executor.check(DOCUMENTS);

  async function run<O extends Operation>(operation: O, variables: VariablesOf<(typeof DOCUMENTS)[O]>, session: SessionViewer | null): Promise<DataOf<O>> {
    const document = DOCUMENTS[operation] as TadaDocumentNode<DataOf<O>, VariablesOf<(typeof DOCUMENTS)[O]>>;
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

  async function keysOf(session: SessionViewer): Promise<KeysData & { account: Pick<Account, 'email' | 'status'> }> {
    const { sessionAccount: account } = await run('keys', {}, session);
    const today = services.clock().toISOString().slice(0, 10);
    return { account, planName: account.planLimits.name, keyLimit: account.planLimits.apiKeys, keys: account.apiKeys, today };
  }

  async function keysPage(req: DashboardRequest, session: SessionViewer, extra: { created?: string; form?: RestrictionsForm } = {}): Promise<VNode> {
    const data = await keysOf(session);
    return KeysPage({ assets: ASSETS, frame: frameOf(req, data.account, 'keys'), data, ...extra });
  }

  /** An active key of the account, for its restrictions page; 404 otherwise. */
  async function activeKeyOf(session: SessionViewer, id: string | null) {
    const data = await keysOf(session);
    const key = data.keys.find((k) => k.id === id && k.status === 'active');
    if (!key) throw new NotFoundError('This account has no active key with that id.');
    return { ...data, key };
  }

  async function usagePage(req: DashboardRequest, session: SessionViewer): Promise<VNode> {
    const { sessionAccount: account } = await run('usage', {}, session);
    const data: UsageData = { planName: account.planLimits.name, resets: account.planLimits.resets, quota: account.quota, ...account.usage };
    return UsagePage({ assets: ASSETS, frame: frameOf(req, account, 'usage'), data });
  }

  async function webhooksOf(session: SessionViewer): Promise<WebhooksData & { account: Pick<Account, 'email' | 'status'> }> {
    const { sessionAccount: account, webhookSubscriptions: list } = await run('webhooks', {}, session);
    return {
      account,
      planName: account.planLimits.name,
      limit: list.limit,
      upgrade: WEBHOOKS_UPGRADE,
      allCurrencies: ALL_CURRENCIES,
      subscriptions: list.subscriptions,
    };
  }

  async function webhooksPage(req: DashboardRequest, session: SessionViewer, extra: { notice?: WebhooksNotice; form?: CreateForm } = {}): Promise<VNode> {
    const data = await webhooksOf(session);
    return WebhooksPage({ assets: ASSETS, frame: frameOf(req, data.account, 'webhooks'), data, ...extra });
  }

  async function alertsOf(session: SessionViewer): Promise<AlertsData & { account: Pick<Account, 'email' | 'status'> }> {
    const { sessionAccount: account, alerts: list } = await run('alerts', {}, session);
    return {
      account,
      planName: account.planLimits.name,
      limit: list.limit,
      webhooks: account.planLimits.webhookSubscriptions > 0,
      upgrade: ALERTS_UPGRADE,
      currencies: PUBLISHED_CODES,
      alerts: list.alerts,
      firings: list.recentFirings,
    };
  }

  async function alertsPage(req: DashboardRequest, session: SessionViewer, extra: { test?: AlertTestNotice; form?: AlertForm } = {}): Promise<VNode> {
    const data = await alertsOf(session);
    return AlertsPage({ assets: ASSETS, frame: frameOf(req, data.account, 'alerts'), data, ...extra });
  }

  /** A state-changing form from a signed-in page: same origin, then the CSRF token. */
  async function signedInForm(req: DashboardRequest): Promise<{ session: SessionViewer; form: URLSearchParams }> {
    checkSameOrigin(req);
    const form = await formOf(req);
    return { session: checkCsrf(req, form), form };
  }

  const reports = new Reports(services, logger);
  const runAverages =
    (session: SessionViewer): RunAverages =>
    (variables) =>
      run('averages', variables, session);

  /** A Reports download: the period's figures as the API's file of the same format (one unit). */
  async function reportFile(req: DashboardRequest, file: (period: string, result: AveragesResult) => StreamedBody): Promise<Answer> {
    const session = signedIn(req);
    const { period, result } = await reports.download(session, req.url.searchParams, runAverages(session));
    const body = file(period, result);
    return { status: 200, body, headers: { ...body.headers(), 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' } };
  }

  type Handler = (req: DashboardRequest) => Promise<Answer>;
  /** Every page: its path and what each method does. */
  const pages: Record<string, Partial<Record<'GET' | 'POST', Handler>>> = {
    '/dashboard': {
      GET: async (req) => {
        if (!req.session) return page(200, SignInPage({ assets: ASSETS }));
        const { sessionAccount: account, serviceStatus: status } = await run('overview', {}, req.session);
        return page(200, OverviewPage({ assets: ASSETS, frame: frameOf(req, account, 'overview'), data: { account, status, now: services.clock() } }));
      },
    },
    '/dashboard/sign-in-link': {
      POST: async (req) => {
        checkSameOrigin(req);
        const email = (await formOf(req)).get('email') ?? '';
        try {
          await run('requestSignInLink', { email, client: req.peer.client }, null);
        } catch (error) {
          if (error instanceof DomainError && error.code === 'bad_request') {
            return page(400, SignInPage({ assets: ASSETS, error: error.message, email: email.slice(0, 254) }));
          }
          throw error;
        }
        return page(200, CheckEmailPage({ assets: ASSETS, minutes: SIGN_IN_LINK_MINUTES }));
      },
    },
    [SIGN_IN_PATH]: {
      // Opening the link only shows a button: a mail scanner that fetches it consumes nothing.
      GET: async (req) => {
        const token = req.url.searchParams.get('token') ?? '';
        if (!isTokenShaped(token)) {
          return page(
            400,
            BadLinkPage({ assets: ASSETS, message: 'This address is not a complete sign-in link. Copy the whole link from the e-mail, or ask for a new one.' }),
          );
        }
        return page(200, ConfirmSignInPage({ assets: ASSETS, token }));
      },
      POST: async (req) => {
        checkSameOrigin(req);
        const token = (await formOf(req)).get('token') ?? '';
        let sessionToken: string;
        try {
          ({
            signIn: { sessionToken },
          } = await run('signIn', { token }, null));
        } catch (error) {
          if (error instanceof DomainError && error.code === 'invalid_sign_in_link') return page(400, BadLinkPage({ assets: ASSETS, message: error.message }));
          throw error;
        }
        // A new session every time, never the cookie the browser came with (no fixation); the old one ends.
        if (req.session) await run('signOut', {}, req.session);
        return redirect('/dashboard', { 'Set-Cookie': sessionCookie(req.https, sessionToken, SESSION_MAX_AGE_S) });
      },
    },
    '/dashboard/keys': {
      GET: async (req) => {
        const session = signedIn(req);
        return page(200, await keysPage(req, session));
      },
      POST: async (req) => {
        const { session, form } = await signedInForm(req);
        const before = await keysOf(session);
        const active = before.keys.filter((k) => k.status === 'active').length;
        // Free and Starter hold one key: replacing it must be confirmed, as the old one stops at once.
        if (before.keyLimit === 1 && active > 0 && form.get('confirm') !== 'yes') {
          throw new BadRequestError('Tick the box confirming that your current key stops working at once, then generate again.');
        }
        const sent = sentRestrictions(form);
        try {
          const { createSessionApiKey } = await run('createKey', { restrictions: restrictionsChange(sent) }, session);
          return page(200, await keysPage(req, session, { created: createSessionApiKey.key }));
        } catch (error) {
          if (!(error instanceof BadRequestError)) throw error;
          return page(400, await keysPage(req, session, { form: { ...sent, error: inFormWords(error.message) } }));
        }
      },
    },
    '/dashboard/keys/restrict': {
      GET: async (req) => {
        const session = signedIn(req);
        const { account, key, today } = await activeKeyOf(session, req.url.searchParams.get('id'));
        const form = restrictionsForm(key.restrictions);
        return page(200, RestrictKeyPage({ assets: ASSETS, frame: frameOf(req, account, 'keys'), keyToRestrict: key, today, form }));
      },
      POST: async (req) => {
        const { session, form } = await signedInForm(req);
        const id = form.get('id') ?? '';
        if (form.get('clear') === 'yes') {
          await run('restrictKey', { id, clear: true }, session);
          return redirect('/dashboard/keys');
        }
        const sent = sentRestrictions(form);
        try {
          await run('restrictKey', { id, restrictions: restrictionsChange(sent) }, session);
        } catch (error) {
          if (!(error instanceof BadRequestError)) throw error;
          const { account, key, today } = await activeKeyOf(session, id);
          const shown = { ...sent, error: inFormWords(error.message) };
          return page(400, RestrictKeyPage({ assets: ASSETS, frame: frameOf(req, account, 'keys'), keyToRestrict: key, today, form: shown }));
        }
        return redirect('/dashboard/keys');
      },
    },
    '/dashboard/keys/revoke': {
      GET: async (req) => {
        const session = signedIn(req);
        const { account, keys } = await keysOf(session);
        const key = keys.find((k) => k.id === req.url.searchParams.get('id') && k.status === 'active');
        if (!key) throw new NotFoundError('This account has no active key with that id.');
        return page(200, RevokeKeyPage({ assets: ASSETS, frame: frameOf(req, account, 'keys'), keyToRevoke: key }));
      },
      POST: async (req) => {
        const { session, form } = await signedInForm(req);
        await run('revokeKey', { id: form.get('id') ?? '' }, session);
        return redirect('/dashboard/keys');
      },
    },
    '/dashboard/usage': {
      GET: async (req) => page(200, await usagePage(req, signedIn(req))),
    },
    '/dashboard/webhooks': {
      GET: async (req) => page(200, await webhooksPage(req, signedIn(req))),
      POST: async (req) => {
        const { session, form } = await signedInForm(req);
        const sent: CreateForm = { url: (form.get('url') ?? '').trim(), currencies: form.get('currencies') ?? '', description: form.get('description') ?? '' };
        try {
          const currencies = parseCurrencyList(sent.currencies);
          const input = { url: sent.url, ...(currencies ? { currencies } : {}), ...(sent.description.trim() !== '' ? { description: sent.description } : {}) };
          const { createWebhookSubscription: created } = await run('createWebhook', { input }, session);
          return page(200, await webhooksPage(req, session, { notice: { created: { url: created.subscription.url, signingSecret: created.signingSecret } } }));
        } catch (error) {
          if (!(error instanceof BadRequestError)) throw error;
          // The form again with what was sent (cut to what its fields hold) and why it was refused.
          const kept = { url: sent.url.slice(0, 2048), currencies: sent.currencies.slice(0, 400), description: sent.description.slice(0, 200) };
          return page(400, await webhooksPage(req, session, { form: { ...kept, error: error.message } }));
        }
      },
    },
    '/dashboard/webhooks/test': {
      POST: async (req) => {
        const { session, form } = await signedInForm(req);
        const id = form.get('id') ?? '';
        const { testWebhookSubscription: test } = await run('testWebhook', { id }, session);
        const data = await webhooksOf(session);
        const url = data.subscriptions.find((s) => s.id === id)?.url ?? 'The receiver';
        return page(200, WebhooksPage({ assets: ASSETS, frame: frameOf(req, data.account, 'webhooks'), data, notice: { test: { url, ...test } } }));
      },
    },
    '/dashboard/webhooks/redeliver': {
      POST: async (req) => {
        const { session, form } = await signedInForm(req);
        const id = form.get('id') ?? '';
        const { redeliverWebhookDelivery: delivery } = await run('redeliverWebhook', { id, deliveryId: form.get('delivery') ?? '' }, session);
        const data = await webhooksOf(session);
        const url = data.subscriptions.find((s) => s.id === id)?.url ?? 'The receiver';
        const last = delivery.attempts.at(-1);
        const delivered = delivery.state === 'delivered';
        const message = delivered
          ? `Delivery ${delivery.id} sent again and acknowledged`
          : `Delivery ${delivery.id} sent again and not acknowledged: ${inPlainWords(last?.error ?? 'no answer')}`;
        const redelivery = { url, delivered, responseStatus: last?.status ?? 0, message };
        return page(200, WebhooksPage({ assets: ASSETS, frame: frameOf(req, data.account, 'webhooks'), data, notice: { redelivery } }));
      },
    },
    '/dashboard/webhooks/active': {
      POST: async (req) => {
        const { session, form } = await signedInForm(req);
        const active = form.get('active');
        if (active !== 'true' && active !== 'false')
          throw new BadRequestError('This form must say whether to pause or re-activate. Reload the page and try again.');
        await run('setWebhookActive', { id: form.get('id') ?? '', isActive: active === 'true' }, session);
        return redirect('/dashboard/webhooks');
      },
    },
    '/dashboard/webhooks/delete': {
      GET: async (req) => {
        const session = signedIn(req);
        const data = await webhooksOf(session);
        const subscription = data.subscriptions.find((s) => s.id === req.url.searchParams.get('id'));
        if (!subscription) throw new NotFoundError('This account has no webhook subscription with that id.');
        return page(200, DeleteSubscriptionPage({ assets: ASSETS, frame: frameOf(req, data.account, 'webhooks'), subscription }));
      },
      POST: async (req) => {
        const { session, form } = await signedInForm(req);
        await run('deleteWebhook', { id: form.get('id') ?? '' }, session);
        return redirect('/dashboard/webhooks');
      },
    },
    '/dashboard/alerts': {
      GET: async (req) => page(200, await alertsPage(req, signedIn(req))),
      POST: async (req) => {
        const { session, form } = await signedInForm(req);
        const sent: AlertForm = {
          currency: form.get('currency') ?? '',
          condition: form.get('condition') ?? '',
          value: (form.get('value') ?? '').trim(),
          channels: form.getAll('channels'),
          description: form.get('description') ?? '',
        };
        try {
          const { description, ...fields } = sent;
          const input = { ...fields, ...(description.trim() !== '' ? { description } : {}) };
          await run('createAlert', { input }, session);
          return redirect('/dashboard/alerts');
        } catch (error) {
          if (!(error instanceof BadRequestError)) throw error;
          // The form again with what was sent (cut to what its fields hold) and why it was refused.
          const kept = { ...sent, value: sent.value.slice(0, 20), description: sent.description.slice(0, 200), error: error.message };
          return page(400, await alertsPage(req, session, { form: kept }));
        }
      },
    },
    '/dashboard/alerts/test': {
      POST: async (req) => {
        const { session, form } = await signedInForm(req);
        const { testAlert: test } = await run('testAlert', { id: form.get('id') ?? '' }, session);
        const lines = [...(test.email ? [test.email.message] : []), ...test.webhooks.map((w) => `${w.url}: ${inPlainWords(w.message)}`)];
        const ok = (test.email?.sent ?? true) && test.webhooks.every((w) => w.delivered);
        const notice = {
          ok,
          lines: lines.length > 0 ? lines : ['No channel of this alert could take a sample: add a webhook subscription covering its currency.'],
        };
        return page(200, await alertsPage(req, session, { test: notice }));
      },
    },
    '/dashboard/alerts/active': {
      POST: async (req) => {
        const { session, form } = await signedInForm(req);
        const active = form.get('active');
        if (active !== 'true' && active !== 'false') throw new BadRequestError('This form must say whether to pause or resume. Reload the page and try again.');
        await run('setAlertActive', { id: form.get('id') ?? '', isActive: active === 'true' }, session);
        return redirect('/dashboard/alerts');
      },
    },
    '/dashboard/alerts/delete': {
      GET: async (req) => {
        const session = signedIn(req);
        const data = await alertsOf(session);
        const alert = data.alerts.find((a) => a.id === req.url.searchParams.get('id'));
        if (!alert) throw new NotFoundError('This account has no alert with that id.');
        return page(200, DeleteAlertPage({ assets: ASSETS, frame: frameOf(req, data.account, 'alerts'), alert }));
      },
      POST: async (req) => {
        const { session, form } = await signedInForm(req);
        await run('deleteAlert', { id: form.get('id') ?? '' }, session);
        return redirect('/dashboard/alerts');
      },
    },
    [ALERT_PAUSE_PATH]: {
      // Opening the link only shows a button: a mail scanner that fetches it pauses nothing.
      GET: async (req) => {
        const token = req.url.searchParams.get('token') ?? '';
        const { pausableAlert: alert } = await run('pausableAlert', { token }, null);
        return page(200, ConfirmPauseAlertPage({ assets: ASSETS, token, alert }));
      },
      POST: async (req) => {
        checkSameOrigin(req);
        const token = (await formOf(req)).get('token') ?? '';
        const { pauseAlertByLink: alert } = await run('pauseAlertByLink', { token }, null);
        const message = `Paused: ${alertInWords(alert)}. It sends nothing until you resume it on the dashboard's Alerts page.`;
        return page(200, MessagePage({ assets: ASSETS, title: 'Alert paused', message }));
      },
    },
    '/dashboard/reports': {
      GET: async (req) => {
        const session = signedIn(req);
        const { status, data } = await reports.page(session, req.url.searchParams, runAverages(session));
        return page(status, ReportsPage({ assets: ASSETS, frame: frameOf(req, session.account, 'reports'), data }));
      },
    },
    '/dashboard/reports/csv': { GET: (req) => reportFile(req, (period, result) => averagesCsv(period, result.periodAverages)) },
    '/dashboard/reports/xlsx': { GET: (req) => reportFile(req, averagesWorkbook) },
    '/dashboard/plan': {
      GET: async (req) => {
        const { sessionAccount: account } = await run('plan', {}, signedIn(req));
        return page(200, PlanPage({ assets: ASSETS, frame: frameOf(req, account, 'plan'), current: account.plan, contact: planChange }));
      },
    },
    '/dashboard/sign-out': {
      POST: async (req) => {
        checkSameOrigin(req);
        const session = checkCsrf(req, await formOf(req));
        await run('signOut', {}, session);
        return redirect('/dashboard', { 'Set-Cookie': sessionCookie(req.https, '', 0) });
      },
    },
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
    if (refused?.code === 'sign_in_required' && exchange.request.method === 'GET') return redirect('/dashboard');
    const status = refused === null ? 503 : refused.status === 401 && exchange.session ? 403 : refused.status;
    const message = refused?.info ?? 'The dashboard could not answer just now. Try again in a moment.';
    const headers: Record<string, string> = { ...refused?.headers };
    delete headers['WWW-Authenticate']; // the dashboard signs in with a link, not a scheme
    return page(status, MessagePage({ assets: ASSETS, title: refusalTitle(status), message, requestId: exchange.requestId }), headers);
  }

  const endpoint = (method: 'GET' | 'POST', path: string, serve: Endpoint['serve']): Endpoint => ({
    method,
    path,
    template: path,
    cors: false,
    auth: 'none',
    name: null,
    route: null,
    paramPatterns: null,
    serve,
    render: refusalPage,
  });
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
