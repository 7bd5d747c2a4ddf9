// The Alerts page: the account's rate alerts with their last firing and count, the creation form,
// Send test, pause and resume, the confirmation before deleting, and the latest firings. Plans
// without alerts see what a plan with them gives. Also the page an alert e-mail's pause link opens:
// a button, so that opening the link alone (a mail scanner) pauses nothing.
import { conditionInWords } from '../mail/alert-mail.js';
import { count, dateInWords, When } from './formats.js';
import { Layout, type PageAssets, type SignedInFrame } from './layout.js';

type Condition = 'above' | 'below' | 'change_pct';

export interface ListedAlert {
  id: string;
  currency: string;
  condition: string;
  value: string;
  channels: string[];
  description: string | null;
  isActive: boolean;
  lastTriggeredAt: string | null;
  triggerCount: number;
  createdAt: string;
}

export interface ListedFiring {
  alertId: string;
  currency: string;
  condition: string;
  level: string;
  date: string;
  value: string;
  previousDate: string;
  previousValue: string;
  firedAt: string;
}

export interface AlertsData {
  planName: string;
  /** the plan's number of alerts; 0 when it has none */
  limit: number;
  /** whether the plan has webhooks, which an alert's webhook channel needs */
  webhooks: boolean;
  /** the first plan with alerts, shown to a plan without them */
  upgrade: { name: string; alerts: number };
  /** the codes an alert may watch */
  currencies: readonly string[];
  alerts: ListedAlert[];
  firings: ListedFiring[];
}

/** What the creation form was sent with, kept when it is refused. */
export interface AlertForm {
  currency: string;
  condition: string;
  value: string;
  channels: string[];
  description: string;
  error?: string;
}

/** One sample sent at the customer's request, and how it went. */
export interface AlertTestNotice {
  ok: boolean;
  lines: string[];
}

const CONDITIONS: [Condition, string][] = [
  ['above', 'Rises to or above a rate'],
  ['below', 'Falls to or below a rate'],
  ['change_pct', 'Moves by at least a percentage in a day'],
];

/** The alert's condition in words, from what the API calls it. */
export function alertInWords(alert: { condition: string; currency: string; value: string }): string {
  return conditionInWords(alert.condition as Condition, alert.currency, alert.value);
}

/** The API's refusals of an alert's fields, in words for a person filling in the form; others as they came. */
const PLAIN_WORDS: [RegExp, (...parts: string[]) => string][] = [
  [/^value (must be a positive decimal number).*$/, () => 'Enter the value as a positive number, such as 0.69 or 1.5.'],
  [/^value (.+)$/, (rest) => `The value ${rest}.`],
  [/^channels must name at least one.*$/, () => 'Choose at least one way to send the alert.'],
  [/^description must be at most (\d+) characters$/, (n) => `The description is too long: it may have at most ${n} characters.`],
];

export function alertRefusalInWords(refusal: string): string {
  for (const [pattern, words] of PLAIN_WORDS) {
    const match = pattern.exec(refusal);
    if (match) return words(...match.slice(1));
  }
  return refusal;
}

const CHANNEL_NAMES: Record<string, string> = { email: 'E-mail', webhook: 'Webhook' };

function AlertCard({ frame, alert }: { frame: SignedInFrame; alert: ListedAlert }) {
  const a = alert;
  const name = alertInWords(a);
  return (
    <article class="card stack" aria-labelledby={`alert-${a.id}`}>
      <h3 id={`alert-${a.id}`}>{name}</h3>
      {a.description && <p>{a.description}</p>}
      <dl class="facts">
        <dt>Status</dt>
        <dd class={a.isActive ? '' : 'error'}>{a.isActive ? 'Active' : 'Paused'}</dd>
        <dt>Sent by</dt>
        <dd>{a.channels.map((c) => CHANNEL_NAMES[c] ?? c).join(' and ')}</dd>
        <dt>Last fired</dt>
        <dd>{a.lastTriggeredAt ? <When at={a.lastTriggeredAt} /> : 'Never'}</dd>
        <dt>Fired</dt>
        <dd>{a.triggerCount === 1 ? 'once' : `${count.format(a.triggerCount)} times`}</dd>
        <dt>Created</dt>
        <dd>
          <When at={a.createdAt} />
        </dd>
      </dl>
      {/* A suspended account's session may list its alerts but not change them: the schema refuses it too. */}
      {frame.status !== 'suspended' && (
        <div class="actions">
          <form class="inline" method="post" action="/dashboard/alerts/test">
            <input type="hidden" name="csrf" value={frame.csrfToken} />
            <input type="hidden" name="id" value={a.id} />
            <button type="submit" class="secondary" aria-label={`Send test of: ${name}`}>
              Send test
            </button>
          </form>
          <form class="inline" method="post" action="/dashboard/alerts/active">
            <input type="hidden" name="csrf" value={frame.csrfToken} />
            <input type="hidden" name="id" value={a.id} />
            <input type="hidden" name="active" value={a.isActive ? 'false' : 'true'} />
            <button type="submit" class="secondary" aria-label={`${a.isActive ? 'Pause' : 'Resume'}: ${name}`}>
              {a.isActive ? 'Pause' : 'Resume'}
            </button>
          </form>
          <a class="danger" href={`/dashboard/alerts/delete?id=${encodeURIComponent(a.id)}`} aria-label={`Delete: ${name}`}>
            Delete
          </a>
        </div>
      )}
    </article>
  );
}

function CreateAlert({ frame, data, form, blocked }: { frame: SignedInFrame; data: AlertsData; form: AlertForm | undefined; blocked: string | null }) {
  const channels = form?.channels ?? ['email'];
  return (
    <section class="card stack" aria-labelledby="create-heading">
      <h2 id="create-heading">Add an alert</h2>
      {blocked ? (
        <p class="muted">{blocked}</p>
      ) : (
        <form method="post" action="/dashboard/alerts" class="stack">
          <input type="hidden" name="csrf" value={frame.csrfToken} />
          <div>
            <label for="currency">Currency</label>
            <select id="currency" name="currency" class="field" required>
              {data.currencies.map((code) => (
                <option value={code} selected={form?.currency === code}>
                  {code}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="condition">When the rate</label>
            <select id="condition" name="condition" class="field" required>
              {CONDITIONS.map(([value, label]) => (
                <option value={value} selected={form?.condition === value}>
                  {label}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="value">Value</label>
            <input id="value" name="value" type="text" inputMode="decimal" required maxLength={20} value={form?.value} aria-describedby="value-help" />
            <p id="value-help" class="muted">
              A rate as published (units of the currency for A$1, such as 0.69 for USD), or a percentage (such as 1.5) for a day's move. At most 6 decimal
              places.
            </p>
          </div>
          <fieldset>
            <legend>Send by</legend>
            <div class="choice">
              <input id="channel-email" name="channels" type="checkbox" value="email" checked={channels.includes('email')} />
              <label for="channel-email">E-mail to {frame.email}</label>
            </div>
            {data.webhooks ? (
              <div class="choice">
                <input id="channel-webhook" name="channels" type="checkbox" value="webhook" checked={channels.includes('webhook')} />
                <label for="channel-webhook">Webhook, to each active subscription covering the currency</label>
              </div>
            ) : (
              <p class="muted">{`On the ${data.planName} plan alerts are sent by e-mail only.`}</p>
            )}
          </fieldset>
          <div>
            <label for="description">Description (optional)</label>
            <input id="description" name="description" type="text" maxLength={200} value={form?.description} />
          </div>
          {form?.error && (
            <p class="error" role="alert">
              {alertRefusalInWords(form.error)}
            </p>
          )}
          <button type="submit">Add alert</button>
        </form>
      )}
    </section>
  );
}

function Firings({ firings }: { firings: ListedFiring[] }) {
  return (
    <section class="card stack" aria-labelledby="firings-heading">
      <h2 id="firings-heading">{`Latest firings (${firings.length})`}</h2>
      {firings.length === 0 ? (
        <p class="muted">No alert has fired yet. Alerts are checked each time new rates are published.</p>
      ) : (
        <div class="table-scroll">
          <table class="stacked">
            <thead>
              <tr>
                <th scope="col">Alert</th>
                <th scope="col">Rate date</th>
                <th scope="col" class="number">
                  Rate
                </th>
                <th scope="col" class="number">
                  Previous
                </th>
                <th scope="col">Fired</th>
              </tr>
            </thead>
            <tbody>
              {firings.map((f) => (
                <tr key={`${f.alertId}-${f.date}`}>
                  <td data-label="Alert">{alertInWords({ condition: f.condition, currency: f.currency, value: f.level })}</td>
                  <td data-label="Rate date">{dateInWords(f.date)}</td>
                  <td data-label="Rate" class="number">
                    {f.value}
                  </td>
                  <td data-label="Previous" class="number">{`${f.previousValue} (${dateInWords(f.previousDate)})`}</td>
                  <td data-label="Fired">
                    <When at={f.firedAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** Why no alert can be added, or null when the form may be shown. */
function createBlocked(frame: SignedInFrame, data: AlertsData): string | null {
  if (frame.status === 'suspended') return 'The account is suspended: alerts cannot be created or changed until it is reinstated.';
  if (data.alerts.length >= data.limit) return `The ${data.planName} plan allows ${data.limit} alerts: delete one to add another.`;
  return null;
}

export function AlertsPage({
  assets,
  frame,
  data,
  test,
  form,
}: {
  assets: PageAssets;
  frame: SignedInFrame;
  data: AlertsData;
  test?: AlertTestNotice;
  form?: AlertForm;
}) {
  if (data.limit === 0) {
    return (
      <Layout title="Alerts" assets={assets} frame={frame}>
        <h1>Alerts</h1>
        <section class="card stack" aria-labelledby="upgrade-heading">
          <h2 id="upgrade-heading">{`Rate alerts come with the ${data.upgrade.name} plan and above`}</h2>
          <p>{`The ${data.planName} plan has no rate alerts. On ${data.upgrade.name}, up to ${data.upgrade.alerts} alerts tell you when a currency crosses a rate you choose, or moves more than you expect in a day, by e-mail (and by webhook on the plans with webhooks).`}</p>
          <p>
            <a href="/dashboard/plan#change">{`Compare the plans and ask for ${data.upgrade.name}`}</a>
          </p>
        </section>
      </Layout>
    );
  }
  return (
    <Layout title="Alerts" assets={assets} frame={frame}>
      <h1>Alerts</h1>
      {test && (
        <section class={`card stack ${test.ok ? 'ok' : 'failed'}`} aria-labelledby="test-heading" role="status">
          <h2 id="test-heading">{test.ok ? 'Test sent' : 'Test not fully sent'}</h2>
          {test.lines.map((line) => (
            <p>{line}</p>
          ))}
        </section>
      )}
      <section aria-labelledby="alerts-heading">
        <h2 id="alerts-heading">{`Alerts (${data.alerts.length} of ${data.limit})`}</h2>
        {data.alerts.length === 0 ? <p class="card muted">No alerts yet.</p> : data.alerts.map((a) => <AlertCard key={a.id} frame={frame} alert={a} />)}
      </section>
      <CreateAlert frame={frame} data={data} form={form} blocked={createBlocked(frame, data)} />
      <Firings firings={data.firings} />
    </Layout>
  );
}

export function DeleteAlertPage({ assets, frame, alert }: { assets: PageAssets; frame: SignedInFrame; alert: ListedAlert }) {
  return (
    <Layout title="Delete alert" assets={assets} frame={frame}>
      <section class="card narrow stack">
        <h1>Delete this alert?</h1>
        <p>{alertInWords(alert)}</p>
        <p>It fires no more, and its history of firings goes with it. This cannot be undone: to stop it for a while, pause it instead.</p>
        <form method="post" action="/dashboard/alerts/delete" class="actions">
          <input type="hidden" name="csrf" value={frame.csrfToken} />
          <input type="hidden" name="id" value={alert.id} />
          <button type="submit" class="danger">
            Delete
          </button>{' '}
          <a href="/dashboard/alerts">Cancel</a>
        </form>
      </section>
    </Layout>
  );
}

/** The page an alert e-mail's link opens: the alert, and one button that pauses it. */
export function ConfirmPauseAlertPage({
  assets,
  token,
  alert,
}: {
  assets: PageAssets;
  token: string;
  alert: { condition: string; currency: string; value: string; isActive: boolean };
}) {
  return (
    <Layout title="Pause alert" assets={assets}>
      <section class="card narrow stack">
        <h1>Pause this alert?</h1>
        <p>{alertInWords(alert)}</p>
        {alert.isActive ? (
          <>
            <p>It sends nothing until you resume it on the dashboard's Alerts page.</p>
            <form method="post" action="/dashboard/alerts/pause">
              <input type="hidden" name="token" value={token} />
              <button type="submit">Pause alert</button>
            </form>
          </>
        ) : (
          <p>It is already paused. Resume it on the dashboard's Alerts page.</p>
        )}
        <p>
          <a href="/dashboard/alerts">Alerts</a>
        </p>
      </section>
    </Layout>
  );
}
