// The dashboard's pages, rendered on the server by preact: every text and attribute is escaped by
// the renderer, and every page works without JavaScript.
import type { ComponentChildren } from 'preact';
import { renderToString } from 'preact-render-to-string';
import type { AccountStatus } from '../db/database.js';

/** What every signed-in page shows in its header. */
export interface SignedInFrame {
  email: string;
  status: AccountStatus;
  csrfToken: string;
  current: 'overview' | 'keys';
}

export interface PageAssets {
  stylesheet: string;
}

function Layout({ title, assets, frame, children }: { title: string; assets: PageAssets; frame?: SignedInFrame; children: ComponentChildren }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · AUD rates dashboard`}</title>
        <link rel="stylesheet" href={assets.stylesheet} />
      </head>
      <body>
        <header class="site">
          <div class="bar">
            <a class="brand" href="/dashboard">
              AUD rates
            </a>
            {frame && (
              <>
                <nav aria-label="Dashboard">
                  <a href="/dashboard" aria-current={frame.current === 'overview' ? 'page' : undefined}>
                    Overview
                  </a>
                </nav>
                <span class="muted">{frame.email}</span>
                <form class="inline" method="post" action="/dashboard/sign-out">
                  <input type="hidden" name="csrf" value={frame.csrfToken} />
                  <button class="secondary" type="submit">
                    Sign out
                  </button>
                </form>
              </>
            )}
          </div>
        </header>
        <main>
          {frame?.status === 'suspended' && (
            <p class="banner" role="alert">
              This account is suspended: its API keys are refused and no new keys or webhook subscriptions can be created. Contact support to reinstate it.
            </p>
          )}
          {children}
        </main>
      </body>
    </html>
  );
}

export function renderPage(node: preact.VNode): string {
  return `<!doctype html>${renderToString(node)}`;
}

export function SignInPage({ assets, error, email }: { assets: PageAssets; error?: string; email?: string }) {
  return (
    <Layout title="Sign in" assets={assets}>
      <section class="card narrow stack">
        <h1>Sign in or sign up</h1>
        <p class="muted">We e-mail you a link that signs you in. A new address gets a Free account when its link is first used.</p>
        <form method="post" action="/dashboard/sign-in-link" class="stack">
          <div>
            <label for="email">E-mail</label>
            <input
              id="email"
              name="email"
              type="email"
              autocomplete="email"
              required
              maxLength={254}
              value={email}
              aria-invalid={error ? 'true' : undefined}
              aria-describedby={error ? 'email-error' : undefined}
            />
          </div>
          {error && (
            <p id="email-error" class="error">
              {error}
            </p>
          )}
          <button type="submit">Send sign-in link</button>
        </form>
      </section>
    </Layout>
  );
}

export function CheckEmailPage({ assets, minutes }: { assets: PageAssets; minutes: number }) {
  return (
    <Layout title="Check your e-mail" assets={assets}>
      <section class="card narrow stack">
        <h1>Check your e-mail</h1>
        <p>If the address can receive mail, a sign-in link is on its way. It works once and expires in {minutes} minutes.</p>
        <p class="muted">
          Nothing arrived? Check the spam folder, or <a href="/dashboard">ask for another link</a>.
        </p>
      </section>
    </Layout>
  );
}

export function ConfirmSignInPage({ assets, token }: { assets: PageAssets; token: string }) {
  return (
    <Layout title="Sign in" assets={assets}>
      <section class="card narrow stack">
        <h1>Sign in</h1>
        <p>Continue to your dashboard. The link works once.</p>
        <form method="post" action="/dashboard/sign-in">
          <input type="hidden" name="token" value={token} />
          <button type="submit">Sign in</button>
        </form>
      </section>
    </Layout>
  );
}

export function BadLinkPage({ assets, message }: { assets: PageAssets; message: string }) {
  return (
    <Layout title="Link not valid" assets={assets}>
      <section class="card narrow stack">
        <h1>This link cannot sign you in</h1>
        <p>{message}</p>
        <p>
          <a href="/dashboard">Get a new sign-in link</a>
        </p>
      </section>
    </Layout>
  );
}

export function MessagePage({ assets, title, message, frame }: { assets: PageAssets; title: string; message: string; frame?: SignedInFrame }) {
  return (
    <Layout title={title} assets={assets} {...(frame ? { frame } : {})}>
      <section class="card narrow stack">
        <h1>{title}</h1>
        <p>{message}</p>
        <p>
          <a href="/dashboard">Back to the dashboard</a>
        </p>
      </section>
    </Layout>
  );
}

export interface OverviewData {
  account: {
    email: string;
    plan: string;
    planLimits: {
      name: string;
      monthlyRequests: number;
      resets: boolean;
      apiKeys: number;
      historyDays: number | null;
      fullHistory: boolean;
      timeSeriesDays: number | null;
      webhookSubscriptions: number;
    };
    quota: { limit: number; used: number; remaining: number; resetsAt: string | null };
  };
  status: { state: string; stale: boolean; newestRateDate: string | null; lastUpdate: string | null; nextUpdateExpected: string };
}

const count = new Intl.NumberFormat('en-AU');
const instant = new Intl.DateTimeFormat('en-AU', { timeZone: 'UTC', dateStyle: 'long', timeStyle: 'short', hourCycle: 'h23' });

function When({ at }: { at: string }) {
  return <time dateTime={at}>{`${instant.format(new Date(at))} UTC`}</time>;
}

export function OverviewPage({ assets, frame, data }: { assets: PageAssets; frame: SignedInFrame; data: OverviewData }) {
  const { planLimits: plan, quota } = data.account;
  const { status } = data;
  return (
    <Layout title="Overview" assets={assets} frame={frame}>
      <h1>Overview</h1>
      <section class="card" aria-labelledby="account-heading">
        <h2 id="account-heading">Account</h2>
        <dl class="facts">
          <dt>E-mail</dt>
          <dd>{frame.email}</dd>
          <dt>Plan</dt>
          <dd>{plan.name}</dd>
        </dl>
      </section>
      <section class="card" aria-labelledby="quota-heading">
        <h2 id="quota-heading">{plan.resets ? 'Requests this billing period' : 'Requests of the one-time allowance'}</h2>
        <meter min={0} max={quota.limit} value={quota.used} aria-label="Requests used">
          {`${count.format(quota.used)} of ${count.format(quota.limit)}`}
        </meter>
        <dl class="facts">
          <dt>Used</dt>
          <dd>{count.format(quota.used)}</dd>
          <dt>Remaining</dt>
          <dd>{count.format(quota.remaining)}</dd>
          <dt>Limit</dt>
          <dd>{count.format(quota.limit)}</dd>
          <dt>Resets</dt>
          <dd>{quota.resetsAt ? <When at={quota.resetsAt} /> : 'Never: the Free allowance is used once'}</dd>
        </dl>
      </section>
      <section class="card" aria-labelledby="plan-heading">
        <h2 id="plan-heading">What the {plan.name} plan includes</h2>
        <dl class="facts">
          <dt>Requests</dt>
          <dd>{plan.resets ? `${count.format(plan.monthlyRequests)} a month` : `${count.format(plan.monthlyRequests)} once`}</dd>
          <dt>API keys</dt>
          <dd>{plan.apiKeys}</dd>
          <dt>Historical rates</dt>
          <dd>{plan.fullHistory ? 'Full history from 2018' : plan.historyDays === null ? 'None' : `The last ${plan.historyDays} days`}</dd>
          <dt>Time series</dt>
          <dd>{plan.timeSeriesDays === null ? 'None' : `Up to ${plan.timeSeriesDays} days`}</dd>
          <dt>Webhook subscriptions</dt>
          <dd>{plan.webhookSubscriptions === 0 ? 'None' : plan.webhookSubscriptions}</dd>
        </dl>
      </section>
      <section class="card" aria-labelledby="data-heading">
        <h2 id="data-heading">Data</h2>
        {status.stale && <p class="banner">The rates are late: the newest published day has not arrived yet. Answers carry X-Data-Stale.</p>}
        <dl class="facts">
          <dt>Service</dt>
          <dd>{status.state === 'operational' ? 'Operational' : 'Degraded'}</dd>
          <dt>Newest rates</dt>
          <dd>{status.newestRateDate ?? 'None stored yet'}</dd>
          <dt>Last stored</dt>
          <dd>{status.lastUpdate ? <When at={status.lastUpdate} /> : 'Unknown'}</dd>
          <dt>Next expected</dt>
          <dd>
            <When at={status.nextUpdateExpected} />
          </dd>
        </dl>
      </section>
    </Layout>
  );
}
