// The dashboard's pages, rendered on the server by preact: every text and attribute is escaped by
// the renderer, and every page works without JavaScript.
import type { ComponentChildren } from 'preact';
import { renderToString } from 'preact-render-to-string';
import type { AccountStatus } from '../db/database.js';
import { SYDNEY } from '../domain/calendar.js';

/** What every signed-in page shows in its header. */
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
    quota: Quota;
    usage: { current: { refusedRequests: number } };
  };
  status: ServiceStatus;
  /** the service's clock, which says whether new rates are due yet */
  now: Date;
}

/** The quota's own count: the numbers a keyed answer's rate-limit headers carry. */
export interface Quota {
  limit: number;
  used: number;
  remaining: number;
  resetsAt: string | null;
}

export interface ServiceStatus {
  state: string;
  stale: boolean;
  newestRateDate: string | null;
  lastUpdate: string | null;
  nextUpdateExpected: string;
}

export const count = new Intl.NumberFormat('en-AU');
const sydneyInstant = new Intl.DateTimeFormat('en-AU', { timeZone: SYDNEY, dateStyle: 'long', timeStyle: 'short', hourCycle: 'h23' });
const utcInstant = new Intl.DateTimeFormat('en-AU', { timeZone: 'UTC', dateStyle: 'long', timeStyle: 'short', hourCycle: 'h23' });
const longDate = new Intl.DateTimeFormat('en-AU', { timeZone: 'UTC', dateStyle: 'long' });

/** An instant in Sydney time, the zone named (rate dates and usage days are Sydney's too); its UTC reading on hover. */
export function When({ at }: { at: string }) {
  const instant = new Date(at);
  return <time dateTime={at} title={`${utcInstant.format(instant)} UTC`}>{`${sydneyInstant.format(instant)} Sydney time`}</time>;
}

/** A calendar date (YYYY-MM-DD) in words, such as 11 May 2026. */
export const dateInWords = (date: string): string => longDate.format(new Date(`${date}T00:00:00Z`));

/** A Sydney date in words, labelled as one. */
export function SydneyDate({ date }: { date: string }) {
  return <time dateTime={date}>{`${dateInWords(date)} (Sydney date)`}</time>;
}

/** The quota's count as Overview and Usage both show it, with the refused requests apart. */
export function QuotaFacts({ quota, refused, resets }: { quota: Quota; refused: number; resets: boolean }) {
  return (
    <>
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
        <dt>Refused, not counted</dt>
        <dd>{count.format(refused)}</dd>
      </dl>
      <p class="muted">
        {`Each successful request for rates or a conversion counts, "not modified" answers included. Requests refused with an error (a mistyped parameter, a date outside the plan, the ${resets ? 'quota' : 'allowance'} used up) are not counted: they are shown apart, and appear within a few seconds.`}
      </p>
    </>
  );
}

/** When new rates are due, or how late they are, in words. */
function NextRates({ status, now }: { status: ServiceStatus; now: Date }) {
  const due = <When at={status.nextUpdateExpected} />;
  if (Date.parse(status.nextUpdateExpected) > now.getTime()) return <>Due {due}</>;
  if (status.stale) return <>Were due {due} and have not arrived</>;
  return <>Were due {due}; the Reserve Bank's rates usually arrive within two hours of that</>;
}

export function OverviewPage({ assets, frame, data }: { assets: PageAssets; frame: SignedInFrame; data: OverviewData }) {
  const { planLimits: plan, quota } = data.account;
  const { status, now } = data;
  return (
    <Layout title="Overview" assets={assets} frame={frame}>
      <h1>Overview</h1>
      <section class="card" aria-labelledby="account-heading">
        <h2 id="account-heading">Account</h2>
        <dl class="facts">
          <dt>E-mail</dt>
          <dd>{frame.email}</dd>
          <dt>Plan</dt>
          <dd>
            {plan.name} (<a href="/dashboard/plan">compare plans or ask for another</a>)
          </dd>
        </dl>
      </section>
      <section class="card" aria-labelledby="quota-heading">
        <h2 id="quota-heading">{plan.resets ? 'Requests this billing period' : 'Requests of the one-time allowance'}</h2>
        <QuotaFacts quota={quota} refused={data.account.usage.current.refusedRequests} resets={plan.resets} />
        <p>
          <a href="/dashboard/usage">Requests per day, endpoint and key</a>
        </p>
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
        {status.stale && status.newestRateDate !== null && (
          <p class="banner">
            The rates are late: new rates were due <When at={status.nextUpdateExpected} /> and have not arrived. Until they do, the API answers with the newest
            rates it has, from {dateInWords(status.newestRateDate)}, and marks those answers as late.
          </p>
        )}
        <dl class="facts">
          <dt>Service</dt>
          <dd>{status.state === 'operational' ? 'Operational' : 'Degraded'}</dd>
          <dt>Newest rates</dt>
          <dd>{status.newestRateDate ? <time dateTime={status.newestRateDate}>{dateInWords(status.newestRateDate)}</time> : 'None stored yet'}</dd>
          <dt>New rates</dt>
          <dd>{status.newestRateDate ? <NextRates status={status} now={now} /> : 'None stored yet: the service is fetching the history'}</dd>
          <dt>Last stored</dt>
          <dd>{status.lastUpdate ? <When at={status.lastUpdate} /> : 'Unknown'}</dd>
        </dl>
        <p class="muted">The Reserve Bank of Australia publishes new rates each business day at about 16:00 Sydney time.</p>
      </section>
    </Layout>
  );
}

export interface KeyRestrictionsView {
  allowedIps: readonly string[] | null;
  allowedEndpoints: readonly string[] | null;
  expiresOn: string | null;
  monthlyCap: number | null;
  /** a capped key's use this period */
  capUsed: number | null;
}

export interface ListedKey {
  id: string;
  prefix: string;
  lastFour: string;
  status: 'active' | 'revoked';
  createdAt: string;
  lastUsedOn: string | null;
  restrictions: KeyRestrictionsView;
}

/** The restriction fields as the form sent them, and why they were refused, to show again. */
export interface RestrictionsForm {
  allowedIps: string;
  allowedEndpoints: readonly string[];
  expiresOn: string;
  monthlyCap: string;
  error?: string;
}

/** The endpoint names a key may be limited to, with what each covers, in the form's order. */
export const ENDPOINT_CHOICES: readonly [name: string, covers: string][] = [
  ['latest', '/latest, /latest/{currency}'],
  ['historical', '/{date}, /{date}/{currency}'],
  ['timeseries', '/timeseries'],
  ['convert', '/convert with the key'],
  ['fluctuation', '/fluctuation'],
  ['averages', '/averages'],
  ['export', '/export'],
  ['webhooks', 'webhook subscriptions'],
  ['alerts', 'rate alerts'],
  ['mcp', 'the MCP endpoint'],
];

/** A key's restrictions in the form's terms. */
export function restrictionsForm(r: KeyRestrictionsView): RestrictionsForm {
  return {
    allowedIps: (r.allowedIps ?? []).join(', '),
    allowedEndpoints: r.allowedEndpoints ?? [],
    expiresOn: r.expiresOn ?? '',
    monthlyCap: r.monthlyCap === null ? '' : String(r.monthlyCap),
  };
}

/** A key's restrictions in a few words each, or that it has none. */
function RestrictionsSummary({ restrictions: r }: { restrictions: KeyRestrictionsView }) {
  const lines: string[] = [];
  if (r.allowedIps) lines.push(`From ${r.allowedIps.join(', ')}`);
  if (r.allowedEndpoints) lines.push(`Only ${r.allowedEndpoints.join(', ')}`);
  if (r.expiresOn) lines.push(`Expires ${r.expiresOn} (00:00 UTC)`);
  if (r.monthlyCap !== null) lines.push(`Cap ${count.format(r.capUsed ?? 0)} of ${count.format(r.monthlyCap)} used this period`);
  if (lines.length === 0) return <span class="muted">None</span>;
  return (
    <ul class="plain">
      {lines.map((line) => (
        <li>{line}</li>
      ))}
    </ul>
  );
}

/** The four restriction fields, for a new key or an existing one; empty fields are no restriction. */
function RestrictionFields({ form, today, legend }: { form: RestrictionsForm | undefined; today: string; legend: string }) {
  return (
    <fieldset class="stack">
      <legend>{legend}</legend>
      <div>
        <label for="allowed-ips">Allowed IP ranges</label>
        <input id="allowed-ips" name="allowedIps" type="text" maxLength={2000} value={form?.allowedIps ?? ''} aria-describedby="allowed-ips-help" />
        <p id="allowed-ips-help" class="muted">
          Up to 20 ranges, IPv4 or IPv6, separated by commas or spaces, such as 203.0.113.0/24, 2001:db8::/32. Empty: any address.
        </p>
      </div>
      <div role="group" aria-labelledby="endpoints-label">
        <p id="endpoints-label" class="label">
          Allowed endpoints
        </p>
        <p class="muted">None ticked: every endpoint.</p>
        <ul class="plain choices">
          {ENDPOINT_CHOICES.map(([name, covers]) => (
            <li>
              <input type="checkbox" id={`endpoint-${name}`} name="allowedEndpoints" value={name} checked={form?.allowedEndpoints.includes(name) ?? false} />{' '}
              <label for={`endpoint-${name}`}>
                <code>{name}</code> <span class="muted">{covers}</span>
              </label>
            </li>
          ))}
        </ul>
      </div>
      <div>
        <label for="expires-on">Expires on</label>
        <input id="expires-on" name="expiresOn" type="date" min={today} value={form?.expiresOn ?? ''} aria-describedby="expires-on-help" />
        <p id="expires-on-help" class="muted">
          From 00:00 UTC that day the key is refused. Empty: it does not expire.
        </p>
      </div>
      <div>
        <label for="monthly-cap">Monthly cap</label>
        <input id="monthly-cap" name="monthlyCap" type="number" min={0} step={1} value={form?.monthlyCap ?? ''} aria-describedby="monthly-cap-help" />
        <p id="monthly-cap-help" class="muted">
          At most this many of the account's requests each billing period may use this key. Empty: no cap.
        </p>
      </div>
      {form?.error && (
        <p class="error" role="alert">
          {form.error}
        </p>
      )}
    </fieldset>
  );
}

export interface KeysData {
  planName: string;
  /** the plan's key count */
  keyLimit: number;
  keys: ListedKey[];
  /** today in UTC, the earliest expiry a key may be given */
  today: string;
}

/** Why Generate is disabled, or null when it may be pressed. */
function generateBlocked(frame: SignedInFrame, data: KeysData, active: number): string | null {
  if (frame.status === 'suspended') return 'The account is suspended: no new keys can be created.';
  if (data.keyLimit > 1 && active >= data.keyLimit) {
    return `The ${data.planName} plan allows ${data.keyLimit} active keys: revoke one to generate another.`;
  }
  return null;
}

export function KeysPage({
  assets,
  frame,
  data,
  created,
  form,
}: {
  assets: PageAssets;
  frame: SignedInFrame;
  data: KeysData;
  created?: string;
  /** the generate form sent back with why it was refused */
  form?: RestrictionsForm;
}) {
  const active = data.keys.filter((k) => k.status === 'active').length;
  const blocked = generateBlocked(frame, data, active);
  const replaces = data.keyLimit === 1 && active > 0;
  return (
    <Layout title="API keys" assets={assets} frame={frame}>
      <h1>API keys</h1>
      {created && (
        <section class="card stack" aria-labelledby="new-key-heading">
          <h2 id="new-key-heading">Your new key</h2>
          <p class="banner">Copy it now: it is not shown again, and only its prefix and last four characters are kept.</p>
          <label for="new-key">API key</label>
          <input id="new-key" type="text" readonly value={created} class="secret" />
          <button type="button" class="secondary" data-copy="new-key" hidden>
            Copy
          </button>
          <script src={assets.script} defer></script>
        </section>
      )}
      <section class="card stack" aria-labelledby="generate-heading">
        <h2 id="generate-heading">Generate a key</h2>
        <form method="post" action="/dashboard/keys" class="stack">
          <input type="hidden" name="csrf" value={frame.csrfToken} />
          {replaces && !blocked && (
            <p>
              <input type="checkbox" id="confirm" name="confirm" value="yes" required />{' '}
              <label for="confirm">The {data.planName} plan has one key: I understand my current key stops working at once.</label>
            </p>
          )}
          {blocked && (
            <p id="generate-reason" class="muted">
              {blocked}
            </p>
          )}
          {!blocked && <RestrictionFields form={form} today={data.today} legend="Restrictions (optional)" />}
          <button type="submit" disabled={blocked !== null} aria-describedby={blocked ? 'generate-reason' : undefined}>
            Generate key
          </button>
        </form>
      </section>
      <section class="card" aria-labelledby="keys-heading">
        <h2 id="keys-heading">Your keys</h2>
        {data.keys.length === 0 ? (
          <p class="muted">No keys yet.</p>
        ) : (
          <div class="table-scroll">
            <table class="stacked">
              <thead>
                <tr>
                  <th scope="col">Key</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Status</th>
                  <th scope="col">Restrictions</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.keys.map((key) => (
                  <tr key={key.id}>
                    <td data-label="Key">
                      <code>{`${key.prefix}_…${key.lastFour}`}</code>
                    </td>
                    <td data-label="Created">
                      <When at={key.createdAt} />
                    </td>
                    <td data-label="Last used">{key.lastUsedOn ? <SydneyDate date={key.lastUsedOn} /> : 'Never'}</td>
                    <td data-label="Status">{key.status === 'active' ? 'Active' : 'Revoked'}</td>
                    <td data-label="Restrictions">
                      <RestrictionsSummary restrictions={key.restrictions} />
                    </td>
                    <td>
                      {key.status === 'active' && (
                        <>
                          <a
                            href={`/dashboard/keys/restrict?id=${encodeURIComponent(key.id)}`}
                            aria-label={`Edit the restrictions of ${key.prefix}_…${key.lastFour}`}
                          >
                            Restrictions
                          </a>{' '}
                          <a href={`/dashboard/keys/revoke?id=${encodeURIComponent(key.id)}`} aria-label={`Revoke ${key.prefix}_…${key.lastFour}`}>
                            Revoke
                          </a>
                        </>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </Layout>
  );
}

export function RevokeKeyPage({ assets, frame, keyToRevoke }: { assets: PageAssets; frame: SignedInFrame; keyToRevoke: ListedKey }) {
  const name = `${keyToRevoke.prefix}_…${keyToRevoke.lastFour}`;
  return (
    <Layout title="Revoke key" assets={assets} frame={frame}>
      <section class="card narrow stack">
        <h1>Revoke {name}?</h1>
        <p>Requests with this key are refused at once, as with a mistyped key. This cannot be undone.</p>
        <form method="post" action="/dashboard/keys/revoke" class="actions">
          <input type="hidden" name="csrf" value={frame.csrfToken} />
          <input type="hidden" name="id" value={keyToRevoke.id} />
          <button type="submit" class="danger">
            Revoke
          </button>{' '}
          <a href="/dashboard/keys">Cancel</a>
        </form>
      </section>
    </Layout>
  );
}

export function RestrictKeyPage({
  assets,
  frame,
  keyToRestrict,
  today,
  form,
}: {
  assets: PageAssets;
  frame: SignedInFrame;
  keyToRestrict: ListedKey;
  today: string;
  form: RestrictionsForm;
}) {
  const name = `${keyToRestrict.prefix}_…${keyToRestrict.lastFour}`;
  const restricted = Object.entries(keyToRestrict.restrictions).some(([field, value]) => field !== 'capUsed' && value !== null);
  return (
    <Layout title="Key restrictions" assets={assets} frame={frame}>
      <section class="card narrow stack">
        <h1>Restrictions of {name}</h1>
        <p>A request outside them is refused at once, by every server of the service. Empty fields are not restricted.</p>
        <form method="post" action="/dashboard/keys/restrict" class="stack">
          <input type="hidden" name="csrf" value={frame.csrfToken} />
          <input type="hidden" name="id" value={keyToRestrict.id} />
          <RestrictionFields form={form} today={today} legend="Restrictions" />
          <p class="actions">
            <button type="submit">Save restrictions</button> <a href="/dashboard/keys">Cancel</a>
          </p>
        </form>
        {restricted && (
          <form method="post" action="/dashboard/keys/restrict" class="actions">
            <input type="hidden" name="csrf" value={frame.csrfToken} />
            <input type="hidden" name="id" value={keyToRestrict.id} />
            <input type="hidden" name="clear" value="yes" />
            <button type="submit" class="secondary">
              Remove all restrictions
            </button>
          </form>
        )}
      </section>
    </Layout>
  );
}
