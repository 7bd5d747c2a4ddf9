// The frame of every dashboard page, rendered on the server by preact: every text and attribute is
// escaped by the renderer, and every page works without JavaScript.
import type { ComponentChildren } from 'preact';
import { renderToString } from 'preact-render-to-string';
import type { AccountStatus } from '../db/database.js';

/** The signed-in pages in the nav's order: which page, its address, its label. */
const NAV = [
  ['overview', '/dashboard', 'Overview'],
  ['keys', '/dashboard/keys', 'Keys'],
  ['usage', '/dashboard/usage', 'Usage'],
  ['webhooks', '/dashboard/webhooks', 'Webhooks'],
  ['alerts', '/dashboard/alerts', 'Alerts'],
  ['reports', '/dashboard/reports', 'Reports'],
  ['plan', '/dashboard/plan', 'Plan'],
] as const;

export interface SignedInFrame {
  email: string;
  status: AccountStatus;
  csrfToken: string;
  current: (typeof NAV)[number][0];
}

export interface PageAssets {
  stylesheet: string;
  /** the one script: it only adds copy buttons */
  script: string;
  icon: string;
}

export function Layout({ title, assets, frame, children }: { title: string; assets: PageAssets; frame?: SignedInFrame; children: ComponentChildren }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · AUD rates dashboard`}</title>
        <link rel="icon" type="image/svg+xml" href={assets.icon} />
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
                  {NAV.map(([page, href, label]) => (
                    <a href={href} aria-current={frame.current === page ? 'page' : undefined}>
                      {label}
                    </a>
                  ))}
                </nav>
                <span class="muted who" title={frame.email}>
                  {frame.email}
                </span>
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
              This account is suspended: its API keys are refused and no new keys or webhook subscriptions can be created.{' '}
              <a href="/dashboard/plan#change">Contact support</a> to reinstate it.
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

export function MessagePage({
  assets,
  title,
  message,
  frame,
  requestId,
}: {
  assets: PageAssets;
  title: string;
  message: string;
  frame?: SignedInFrame;
  /** on a refusal: the id to quote when asking for help (D21) */
  requestId?: string;
}) {
  return (
    <Layout title={title} assets={assets} {...(frame ? { frame } : {})}>
      <section class="card narrow stack">
        <h1>{title}</h1>
        <p>{message}</p>
        {requestId ? (
          <p class="muted">
            Request id: <code>{requestId}</code>
          </p>
        ) : null}
        <p>
          <a href="/dashboard">Back to the dashboard</a>
        </p>
      </section>
    </Layout>
  );
}
