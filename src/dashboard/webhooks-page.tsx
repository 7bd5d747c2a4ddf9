// The Webhooks page: the account's subscriptions with their health and recent deliveries, the
// creation form (the signing secret shown once), Send test, pause and re-activate, and the
// confirmation before deleting. Plans without webhooks see what a plan with them gives, and no form.
import { count, dateInWords, When } from './formats.js';
import { Layout, type PageAssets, type SignedInFrame } from './layout.js';

export interface DeliveryAttempt {
  deliveryId: string;
  event: 'RATES_PUBLISHED' | 'RATES_TEST' | 'RATES_ALERT';
  rateDate: string;
  attempt: number;
  attemptedAt: string;
  durationMs: number;
  httpStatus: number | null;
  error: string | null;
  delivered: boolean;
  nextAttemptAt: string | null;
  requestBody: string | null;
  responseBody: string | null;
}

export interface ListedSubscription {
  id: string;
  url: string;
  currencies: string[];
  description: string | null;
  isActive: boolean;
  failureCount: number;
  lastSuccessAt: string | null;
  createdAt: string;
  recentDeliveries: DeliveryAttempt[];
}

export interface WebhooksData {
  planName: string;
  /** the plan's number of subscriptions; 0 when it has none */
  limit: number;
  /** the first plan with webhooks, shown to a plan without them */
  upgrade: { name: string; webhookSubscriptions: number };
  /** how many codes "every currency" is today */
  allCurrencies: number;
  subscriptions: ListedSubscription[];
}

/** What the creation form was sent with, kept when it is refused. */
export interface CreateForm {
  url: string;
  currencies: string;
  description: string;
  error?: string;
}

export interface WebhooksNotice {
  /** a new subscription's signing secret, shown this once */
  created?: { url: string; signingSecret: string };
  test?: SentNotice;
  /** a delivery sent again by hand */
  redelivery?: SentNotice;
}

/** One attempt made at the customer's request: where to, whether it was acknowledged, and how. */
export interface SentNotice {
  url: string;
  delivered: boolean;
  responseStatus: number;
  message: string;
}

const REACHABLE = 'deliveries go only to servers reachable from the internet';

/**
 * The API's refusals of a subscription's fields name them as the JSON body does ("url host … is
 * not a public address"); a person filling in the form reads what is wrong in plain words instead.
 * A refusal not listed here is shown as it came.
 */
const PLAIN_WORDS: [RegExp, (...parts: string[]) => string][] = [
  [/^url must be at most (\d+) characters$/, (n) => `The URL is too long: it may have at most ${n} characters.`],
  [/^url must not contain spaces or control characters$/, () => 'The URL cannot contain spaces or invisible characters.'],
  [/^url must be an absolute https URL$/, () => 'Enter a whole address starting with https://, such as https://example.com/hooks/rates.'],
  [/^url must use https$/, () => 'The URL must start with https://: deliveries are sent encrypted.'],
  [/^url must not contain a user name or password$/, () => 'The URL cannot contain a user name or password.'],
  [/^url host (.+) is not a public address$/, (host) => `${host} is a private or reserved address: ${REACHABLE}.`],
  [/^url host (.+) is a local name \(.*\)$/, (host) => `${host} is a name inside a local network: ${REACHABLE}.`],
  [/^url host (.+) resolves to an address that is not public$/, (host) => `${host} leads to a private or reserved address: ${REACHABLE}.`],
  [/^url host (.+) does not resolve$/, (host) => `No server named ${host} was found: check the address.`],
  [/^url host (.+) did not resolve within \d+ ms$/, (host) => `Looking up the server ${host} took too long: try again in a moment.`],
  [/^currencies: AUD is the base currency.*$/, () => 'Leave out AUD: every rate is a price of one Australian dollar, so AUD has no rate of its own.'],
  [/^currencies: (\S+) appears twice$/, (code) => `${code} is listed twice: list each currency once.`],
  [/^description must be at most (\d+) characters$/, (n) => `The description is too long: it may have at most ${n} characters.`],
];

export function inPlainWords(refusal: string): string {
  for (const [pattern, words] of PLAIN_WORDS) {
    const match = pattern.exec(refusal);
    if (match) return words(...match.slice(1));
  }
  return refusal;
}

const EVENT_NAMES = { RATES_PUBLISHED: 'rates.published', RATES_TEST: 'rates.test', RATES_ALERT: 'rates.alert' } as const;

function Redeliver({ frame, subscription, deliveryId }: { frame: SignedInFrame; subscription: ListedSubscription; deliveryId: string }) {
  return (
    <form class="inline" method="post" action="/dashboard/webhooks/redeliver">
      <input type="hidden" name="csrf" value={frame.csrfToken} />
      <input type="hidden" name="id" value={subscription.id} />
      <input type="hidden" name="delivery" value={deliveryId} />
      <button type="submit" class="secondary" aria-label={`Redeliver ${deliveryId}`}>
        Redeliver
      </button>
    </form>
  );
}

function Deliveries({ frame, subscription }: { frame: SignedInFrame; subscription: ListedSubscription }) {
  const attempts = subscription.recentDeliveries;
  // A delivery, a test's included, may be sent again from its latest attempt's row (the list is
  // newest first); one whose body is gone cannot, and a suspended account changes nothing.
  const redeliverable = (a: DeliveryAttempt, row: number) =>
    frame.status !== 'suspended' && a.requestBody !== null && attempts.findIndex((b) => b.deliveryId === a.deliveryId) === row;
  return (
    <details>
      <summary>{`Recent deliveries (${attempts.length})`}</summary>
      {attempts.length === 0 ? (
        <p class="muted">Nothing delivered yet. Send a test, or wait for the next publication.</p>
      ) : (
        <div class="table-scroll">
          <table class="stacked">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Event</th>
                <th scope="col">Rate date</th>
                <th scope="col" class="number">
                  Attempt
                </th>
                <th scope="col">Result</th>
                <th scope="col" class="number">
                  Duration
                </th>
                <th scope="col">Next retry</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {attempts.flatMap((a, row) => [
                <tr key={`${a.deliveryId}-${a.attempt}`}>
                  <td data-label="When">
                    <When at={a.attemptedAt} />
                  </td>
                  <td data-label="Event">{EVENT_NAMES[a.event]}</td>
                  <td data-label="Rate date">{dateInWords(a.rateDate)}</td>
                  <td data-label="Attempt" class="number">
                    {a.attempt}
                  </td>
                  <td data-label="Result" class={a.delivered ? '' : 'error'}>
                    {attemptResult(a)}
                  </td>
                  <td data-label="Duration" class="number">{`${count.format(a.durationMs)} ms`}</td>
                  <td data-label="Next retry">{a.nextAttemptAt ? <When at={a.nextAttemptAt} /> : '—'}</td>
                  <td data-label="Actions">{redeliverable(a, row) && <Redeliver frame={frame} subscription={subscription} deliveryId={a.deliveryId} />}</td>
                </tr>,
                <tr key={`${a.deliveryId}-${a.attempt}-bodies`} class="attempt-bodies">
                  <td colSpan={8}>
                    <AttemptBodies attempt={a} />
                  </td>
                </tr>,
              ])}
            </tbody>
          </table>
        </div>
      )}
    </details>
  );
}

/** What an attempt sent and the start of what it was answered, folded away (text, escaped as any). */
function AttemptBodies({ attempt }: { attempt: DeliveryAttempt }) {
  return (
    <details>
      <summary>{`Request and response of attempt ${attempt.attempt}`}</summary>
      <h4>Request body</h4>
      {attempt.requestBody === null ? <p class="muted">No longer kept.</p> : <pre>{attempt.requestBody}</pre>}
      <h4>Response body (its first 4 KiB)</h4>
      {attempt.responseBody === null ? (
        <p class="muted">No answer.</p>
      ) : attempt.responseBody === '' ? (
        <p class="muted">Empty.</p>
      ) : (
        <pre>{attempt.responseBody}</pre>
      )}
    </details>
  );
}

/** An attempt's answer in a few words: the HTTP status, or why there was none. */
const attemptResult = (a: DeliveryAttempt): string => (a.httpStatus !== null ? `HTTP ${a.httpStatus}` : a.error ? inPlainWords(a.error) : 'No answer');

/** The newest test delivery's attempt, or null when none is listed (the list keeps the recent ones). */
const lastTestOf = (s: ListedSubscription): DeliveryAttempt | null => s.recentDeliveries.find((a) => a.event === 'RATES_TEST') ?? null;

function LastTest({ subscription }: { subscription: ListedSubscription }) {
  const last = lastTestOf(subscription);
  if (!last) return <>None sent</>;
  return (
    <>
      <When at={last.attemptedAt} />
      {`: ${attemptResult(last)}, ${last.delivered ? 'acknowledged' : 'not acknowledged'}`}
    </>
  );
}

/**
 * The result of the newest attempt `matches` picks (a test sent, a delivery sent again), for the
 * notice the page shows after the form that made it redirected here; null when none is listed.
 */
export function attemptNotice(subscription: ListedSubscription, matches: (a: DeliveryAttempt) => boolean): SentNotice | null {
  const attempt = subscription.recentDeliveries.find(matches);
  if (!attempt) return null;
  const message = attempt.delivered
    ? `Delivery ${attempt.deliveryId} acknowledged in ${count.format(attempt.durationMs)} ms.`
    : `Delivery ${attempt.deliveryId} not acknowledged: ${attemptResult(attempt)}. Only a 2xx answer within 10 seconds acknowledges a delivery.`;
  return { url: subscription.url, delivered: attempt.delivered, responseStatus: attempt.httpStatus ?? 0, message };
}

/** The newest test delivery of a subscription, as the notice after Send test. */
export const testNotice = (s: ListedSubscription): SentNotice | null => attemptNotice(s, (a) => a.event === 'RATES_TEST');

function Subscription({ frame, subscription, allCurrencies }: { frame: SignedInFrame; subscription: ListedSubscription; allCurrencies: number }) {
  const s = subscription;
  const health = !s.isActive ? 'Paused' : s.failureCount > 0 ? `Failing (${s.failureCount} in a row)` : 'Active';
  return (
    <article class="card stack" aria-labelledby={`sub-${s.id}`}>
      <h3 id={`sub-${s.id}`} class="url">
        {s.url}
      </h3>
      {s.description && <p>{s.description}</p>}
      <dl class="facts">
        <dt>Status</dt>
        <dd class={s.isActive && s.failureCount === 0 ? '' : 'error'}>{health}</dd>
        {/* a test delivery changes neither the health nor the last success, which are the publications' */}
        <dt>Last publication delivered</dt>
        <dd>{s.lastSuccessAt ? <When at={s.lastSuccessAt} /> : 'Never'}</dd>
        <dt>Last test</dt>
        <dd>
          <LastTest subscription={s} />
        </dd>
        <dt>Currencies</dt>
        <dd>{s.currencies.length === allCurrencies ? 'Every currency' : s.currencies.join(', ')}</dd>
        <dt>Created</dt>
        <dd>
          <When at={s.createdAt} />
        </dd>
      </dl>
      {/* A suspended account's session may list its subscriptions but not change them: the schema refuses it too. */}
      {frame.status !== 'suspended' && (
        <div class="actions">
          <form class="inline" method="post" action="/dashboard/webhooks/test">
            <input type="hidden" name="csrf" value={frame.csrfToken} />
            <input type="hidden" name="id" value={s.id} />
            <button type="submit" class="secondary" aria-label={`Send test to ${s.url}`}>
              Send test
            </button>
          </form>
          <form class="inline" method="post" action="/dashboard/webhooks/active">
            <input type="hidden" name="csrf" value={frame.csrfToken} />
            <input type="hidden" name="id" value={s.id} />
            <input type="hidden" name="active" value={s.isActive ? 'false' : 'true'} />
            <button type="submit" class="secondary" aria-label={`${s.isActive ? 'Pause' : 'Re-activate'} ${s.url}`}>
              {s.isActive ? 'Pause' : 'Re-activate'}
            </button>
          </form>
          <a class="danger" href={`/dashboard/webhooks/delete?id=${encodeURIComponent(s.id)}`} aria-label={`Delete ${s.url}`}>
            Delete
          </a>
        </div>
      )}
      <Deliveries frame={frame} subscription={s} />
    </article>
  );
}

function CreateSubscription({ frame, form, blocked }: { frame: SignedInFrame; form: CreateForm | undefined; blocked: string | null }) {
  const error = form?.error;
  return (
    <section class="card stack" aria-labelledby="create-heading">
      <h2 id="create-heading">Add a subscription</h2>
      {blocked ? (
        <p class="muted">{blocked}</p>
      ) : (
        <form method="post" action="/dashboard/webhooks" class="stack">
          <input type="hidden" name="csrf" value={frame.csrfToken} />
          <div>
            <label for="url">URL</label>
            <input
              id="url"
              name="url"
              type="text"
              inputMode="url"
              required
              maxLength={2048}
              placeholder="https://example.com/hooks/rates"
              value={form?.url}
              aria-describedby="url-help"
            />
            <p id="url-help" class="muted">
              An https address on a public host. Each new publication is POSTed to it, signed.
            </p>
          </div>
          <div>
            <label for="currencies">Currencies (optional)</label>
            <input id="currencies" name="currencies" type="text" maxLength={400} value={form?.currencies} aria-describedby="currencies-help" />
            <p id="currencies-help" class="muted">
              Codes separated by commas or spaces, such as USD, EUR. Leave empty to receive every currency, including any added later.
            </p>
          </div>
          <div>
            <label for="description">Description (optional)</label>
            <input id="description" name="description" type="text" maxLength={200} value={form?.description} />
          </div>
          {error && (
            <p class="error" role="alert">
              {inPlainWords(error)}
            </p>
          )}
          <button type="submit">Add subscription</button>
        </form>
      )}
    </section>
  );
}

/** Why no subscription can be added, or null when the form may be shown. */
function createBlocked(frame: SignedInFrame, data: WebhooksData): string | null {
  if (frame.status === 'suspended') return 'The account is suspended: webhook subscriptions cannot be created or changed until it is reinstated.';
  if (data.subscriptions.length >= data.limit) {
    return `The ${data.planName} plan allows ${data.limit} webhook subscriptions: delete one to add another.`;
  }
  return null;
}

function Sent({ sent, heading }: { sent: SentNotice; heading: string }) {
  return (
    <section class={`card stack ${sent.delivered ? 'ok' : 'failed'}`} aria-labelledby="sent-heading" role="status">
      <h2 id="sent-heading">{heading}</h2>
      <p>{sent.responseStatus > 0 ? `${sent.url} answered HTTP ${sent.responseStatus}.` : `${sent.url} gave no HTTP answer.`}</p>
      <p class="muted">{sent.message}</p>
    </section>
  );
}

export function WebhooksPage({
  assets,
  frame,
  data,
  notice = {},
  form,
}: {
  assets: PageAssets;
  frame: SignedInFrame;
  data: WebhooksData;
  notice?: WebhooksNotice;
  form?: CreateForm;
}) {
  if (data.limit === 0) {
    return (
      <Layout title="Webhooks" assets={assets} frame={frame}>
        <h1>Webhooks</h1>
        <section class="card stack" aria-labelledby="upgrade-heading">
          <h2 id="upgrade-heading">{`Webhooks come with the ${data.upgrade.name} plan and above`}</h2>
          <p>{`The ${data.planName} plan has no webhook subscriptions. On ${data.upgrade.name}, up to ${data.upgrade.webhookSubscriptions} HTTPS addresses of yours receive each day's new rates the moment they are published:`}</p>
          <ul>
            <li>a signed POST (HMAC-SHA256 with a secret of your own) with the day's rates, cut to the currencies you choose;</li>
            <li>retries for up to six hours when your receiver is down, and a test delivery whenever you want one;</li>
            <li>each subscription's health and its recent deliveries on this page.</li>
          </ul>
          <p>
            <a href="/dashboard/plan#change">{`Compare the plans and ask for ${data.upgrade.name}`}</a>
          </p>
        </section>
      </Layout>
    );
  }
  const { created, test, redelivery } = notice;
  return (
    <Layout title="Webhooks" assets={assets} frame={frame}>
      <h1>Webhooks</h1>
      {created && (
        <section class="card stack" aria-labelledby="secret-heading">
          <h2 id="secret-heading">Subscription added</h2>
          <p>{`Deliveries to ${created.url} are signed with this secret.`}</p>
          <p class="banner">Copy it now: it is not shown again, and only an encrypted copy is kept.</p>
          <label for="signing-secret">Signing secret</label>
          <input id="signing-secret" type="text" readonly value={created.signingSecret} class="secret" />
          <button type="button" class="secondary" data-copy="signing-secret" hidden>
            Copy
          </button>
          <script src={assets.script} defer></script>
        </section>
      )}
      {test && <Sent sent={test} heading={test.delivered ? 'Test delivered' : 'Test failed'} />}
      {redelivery && <Sent sent={redelivery} heading={redelivery.delivered ? 'Redelivered' : 'Redelivery failed'} />}
      <section aria-labelledby="subscriptions-heading">
        <h2 id="subscriptions-heading">{`Subscriptions (${data.subscriptions.length} of ${data.limit})`}</h2>
        {data.subscriptions.length === 0 ? (
          <p class="card muted">No subscriptions yet.</p>
        ) : (
          data.subscriptions.map((s) => <Subscription key={s.id} frame={frame} subscription={s} allCurrencies={data.allCurrencies} />)
        )}
      </section>
      <CreateSubscription frame={frame} form={form} blocked={createBlocked(frame, data)} />
    </Layout>
  );
}

export function DeleteSubscriptionPage({ assets, frame, subscription }: { assets: PageAssets; frame: SignedInFrame; subscription: ListedSubscription }) {
  return (
    <Layout title="Delete subscription" assets={assets} frame={frame}>
      <section class="card narrow stack">
        <h1>Delete this subscription?</h1>
        <p class="url">{subscription.url}</p>
        <p>It receives nothing more, and its pending retries and delivery history go with it. This cannot be undone.</p>
        <form method="post" action="/dashboard/webhooks/delete" class="actions">
          <input type="hidden" name="csrf" value={frame.csrfToken} />
          <input type="hidden" name="id" value={subscription.id} />
          <button type="submit" class="danger">
            Delete
          </button>{' '}
          <a href="/dashboard/webhooks">Cancel</a>
        </form>
      </section>
    </Layout>
  );
}
