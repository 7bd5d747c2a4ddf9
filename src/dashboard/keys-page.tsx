// The Keys page: generating a key (shown once), the account's keys with their restrictions, and
// the pages that edit a key's restrictions and confirm its revocation.
import { count, SydneyDate, When } from './formats.js';
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
