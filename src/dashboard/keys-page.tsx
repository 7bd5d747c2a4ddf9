// The Keys page: generating a key in one click (shown once), and the account's keys, each with its
// restrictions folded under it; the page that shows a refused change of restrictions again, and
// the confirmation before revoking.
import type { PlanLimits } from '../domain/plans.js';
import { hasExpired } from '../key-restrictions.js';
import { count, instantInWords, SydneyDate, utcMidnight, When } from './formats.js';
import { Layout, type PageAssets, type SignedInFrame } from './layout.js';

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

/** The endpoint names a key may be limited to, what each covers, and whether a plan allows it, in the form's order. */
const ENDPOINT_CHOICES: readonly [name: string, covers: string, allowed: (plan: PlanLimits) => boolean][] = [
  ['latest', '/latest, /latest/{currency}', () => true],
  ['historical', '/{date}, /{date}/{currency}', (plan) => plan.historyDays !== null],
  ['timeseries', '/timeseries', (plan) => plan.timeSeriesDays !== null],
  ['convert', '/convert with the key', () => true],
  ['fluctuation', '/fluctuation', (plan) => plan.timeSeriesDays !== null],
  ['averages', '/averages', (plan) => plan.historyDays !== null],
  ['export', '/export', (plan) => plan.bulkExport],
  ['webhooks', 'webhook subscriptions', (plan) => plan.webhookSubscriptions > 0],
  ['alerts', 'rate alerts', (plan) => plan.alerts > 0],
  ['mcp', 'the MCP endpoint', () => true],
];

/** The choices a key of `plan` is offered: what the plan allows, and any the key already names (kept after a plan change). */
function endpointChoices(plan: PlanLimits, form: RestrictionsForm | undefined): [name: string, covers: string][] {
  return ENDPOINT_CHOICES.filter(([name, , allowed]) => allowed(plan) || form?.allowedEndpoints.includes(name)).map(([name, covers]) => [name, covers]);
}

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
function RestrictionsSummary({ restrictions: r, expired }: { restrictions: KeyRestrictionsView; expired: boolean }) {
  const lines: string[] = [];
  if (r.allowedIps) lines.push(`From ${r.allowedIps.join(', ')}`);
  if (r.allowedEndpoints) lines.push(`Only ${r.allowedEndpoints.join(', ')}`);
  if (r.expiresOn) lines.push(`${expired ? 'Expired' : 'Expires'} ${instantInWords(utcMidnight(r.expiresOn))}`);
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
function RestrictionFields({
  form,
  today,
  plan,
  legend,
  idPrefix,
}: {
  form: RestrictionsForm | undefined;
  today: string;
  plan: PlanLimits;
  legend: string;
  idPrefix: string;
}) {
  const id = (name: string) => `${idPrefix}${name}`;
  return (
    <fieldset class="stack">
      <legend>{legend}</legend>
      <div>
        <label for={id('allowed-ips')}>Allowed IP ranges</label>
        <input id={id('allowed-ips')} name="allowedIps" type="text" maxLength={2000} value={form?.allowedIps ?? ''} aria-describedby={id('allowed-ips-help')} />
        <p id={id('allowed-ips-help')} class="muted">
          Up to 20 ranges, IPv4 or IPv6, separated by commas or spaces, such as 203.0.113.0/24, 2001:db8::/32. Empty: any address.
        </p>
      </div>
      <div role="group" aria-labelledby={id('endpoints-label')}>
        <p id={id('endpoints-label')} class="label">
          Allowed endpoints
        </p>
        <p class="muted">None ticked: every endpoint the plan allows.</p>
        <ul class="plain choices">
          {endpointChoices(plan, form).map(([name, covers]) => (
            <li>
              <input
                type="checkbox"
                id={id(`endpoint-${name}`)}
                name="allowedEndpoints"
                value={name}
                checked={form?.allowedEndpoints.includes(name) ?? false}
              />{' '}
              <label for={id(`endpoint-${name}`)}>
                <code>{name}</code> <span class="muted">{covers}</span>
              </label>
            </li>
          ))}
        </ul>
      </div>
      <div>
        <label for={id('expires-on')}>Expires on</label>
        <input id={id('expires-on')} name="expiresOn" type="date" min={today} value={form?.expiresOn ?? ''} aria-describedby={id('expires-on-help')} />
        <p id={id('expires-on-help')} class="muted">
          From 00:00 UTC that day the key is refused. Empty: it does not expire.
        </p>
      </div>
      <div>
        <label for={id('monthly-cap')}>Monthly cap</label>
        <input
          id={id('monthly-cap')}
          name="monthlyCap"
          type="number"
          min={0}
          step={1}
          value={form?.monthlyCap ?? ''}
          aria-describedby={id('monthly-cap-help')}
        />
        <p id={id('monthly-cap-help')} class="muted">
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
  /** what the plan allows, which decides the endpoints a key is offered */
  plan: PlanLimits;
  /** the plan's key count */
  keyLimit: number;
  keys: ListedKey[];
  /** today in UTC, the earliest expiry a key may be given */
  today: string;
  /** the service's clock, which says whether a key has expired (as the API's authentication does) */
  now: Date;
}

const keyName = (key: ListedKey) => `${key.prefix}_…${key.lastFour}`;

/** A key's state as the API treats it: revoked, expired (refused with 401 from 00:00 UTC on its expiry), or active. */
export function keyState(key: ListedKey, now: Date): 'Active' | 'Expired' | 'Revoked' {
  if (key.status === 'revoked') return 'Revoked';
  return hasExpired(key.restrictions.expiresOn, now) ? 'Expired' : 'Active';
}

/** Why Generate is disabled, or null when it may be pressed. */
function generateBlocked(frame: SignedInFrame, data: KeysData, active: number): string | null {
  if (frame.status === 'suspended') return 'The account is suspended: no new keys can be created.';
  if (data.keyLimit > 1 && active >= data.keyLimit) {
    return `The ${data.planName} plan allows ${data.keyLimit} active keys: revoke one to generate another.`;
  }
  return null;
}

/** The restrictions of an active key, to change or remove: under the key on the Keys page, or on a page of their own. */
function RestrictionsEditor({
  frame,
  keyToRestrict,
  today,
  plan,
  form,
  idPrefix,
  cancel,
}: {
  frame: SignedInFrame;
  keyToRestrict: ListedKey;
  today: string;
  plan: PlanLimits;
  form: RestrictionsForm;
  idPrefix: string;
  cancel: boolean;
}) {
  const restricted = Object.entries(keyToRestrict.restrictions).some(([field, value]) => field !== 'capUsed' && value !== null);
  return (
    <div class="stack">
      <p class="muted">A request outside them is refused at once, by every server of the service. Empty fields are not restricted.</p>
      <form method="post" action="/dashboard/keys/restrict" class="stack">
        <input type="hidden" name="csrf" value={frame.csrfToken} />
        <input type="hidden" name="id" value={keyToRestrict.id} />
        <RestrictionFields form={form} today={today} plan={plan} legend={`Restrictions of ${keyName(keyToRestrict)}`} idPrefix={idPrefix} />
        <p class="actions">
          <button type="submit">Save restrictions</button> {cancel && <a href="/dashboard/keys">Cancel</a>}
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
    </div>
  );
}

function KeyItem({ frame, data, listed }: { frame: SignedInFrame; data: KeysData; listed: ListedKey }) {
  const state = keyState(listed, data.now);
  const name = keyName(listed);
  return (
    <li class="key" aria-label={`Key ${name}`}>
      <h3>
        <code>{name}</code> <span class={`state ${state.toLowerCase()}`}>{state}</span>
      </h3>
      <dl class="facts">
        <dt>Created</dt>
        <dd>
          <When at={listed.createdAt} />
        </dd>
        <dt>Last used</dt>
        <dd>{listed.lastUsedOn ? <SydneyDate date={listed.lastUsedOn} /> : 'Never'}</dd>
        <dt>Restrictions</dt>
        <dd>
          <RestrictionsSummary restrictions={listed.restrictions} expired={state === 'Expired'} />
        </dd>
      </dl>
      {state === 'Expired' && <p class="muted">The API refuses this key as expired. Move its expiry to a later date, or clear it, to use it again.</p>}
      {listed.status === 'active' && (
        <>
          <details>
            <summary>{`Change the restrictions of ${name}`}</summary>
            <RestrictionsEditor
              frame={frame}
              keyToRestrict={listed}
              today={data.today}
              plan={data.plan}
              form={restrictionsForm(listed.restrictions)}
              idPrefix={`key-${listed.id}-`}
              cancel={false}
            />
          </details>
          <p>
            <a class="danger" href={`/dashboard/keys/revoke?id=${encodeURIComponent(listed.id)}`} aria-label={`Revoke ${name}`}>
              Revoke
            </a>
          </p>
        </>
      )}
    </li>
  );
}

export function KeysPage({
  assets,
  frame,
  data,
  created,
  refusal,
}: {
  assets: PageAssets;
  frame: SignedInFrame;
  data: KeysData;
  created?: string;
  /** why a key was not generated */
  refusal?: string;
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
          <p class="muted">Its restrictions, if it needs any, are under it in the list below.</p>
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
          {refusal && (
            <p class="error" role="alert">
              {refusal}
            </p>
          )}
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
          <ul class="plain keys">
            {data.keys.map((listed) => (
              <KeyItem key={listed.id} frame={frame} data={data} listed={listed} />
            ))}
          </ul>
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
  plan,
  form,
}: {
  assets: PageAssets;
  frame: SignedInFrame;
  keyToRestrict: ListedKey;
  today: string;
  plan: PlanLimits;
  form: RestrictionsForm;
}) {
  return (
    <Layout title="Key restrictions" assets={assets} frame={frame}>
      <section class="card narrow stack">
        <h1>Restrictions of {keyName(keyToRestrict)}</h1>
        <RestrictionsEditor frame={frame} keyToRestrict={keyToRestrict} today={today} plan={plan} form={form} idPrefix="" cancel={true} />
      </section>
    </Layout>
  );
}
