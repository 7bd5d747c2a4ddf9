// The Plan page: the five plans side by side, the account's own marked, and how to ask for another.
// Plans are changed by the operator (D31 in docs/decisions.md): the page links to where the
// deployment takes such requests, PLAN_CHANGE_URL or a mail to SUPPORT_EMAIL.
import { PLAN_LIMITS, PLAN_PRICES_AUD, PLANS, type Plan, type PlanLimits } from '../domain/plans.js';
import { count } from './formats.js';
import { Layout, type PageAssets, type SignedInFrame } from './layout.js';

/** Where a customer asks for another plan; both null when the deployment named neither. */
export interface PlanChangeContact {
  url: string | null;
  email: string | null;
}

const price = (plan: Plan): string => {
  const aud = PLAN_PRICES_AUD[plan];
  if (aud === null) return 'Agreed with you';
  return aud === 0 ? 'Free' : `A$${aud} a month`;
};

const history = (limits: PlanLimits): string =>
  limits.historyDays === null ? 'None' : limits.historyDays === 'full' ? 'Full history from 2018' : `The last ${limits.historyDays} days`;

const alerts = (limits: PlanLimits): string => {
  if (limits.alerts === 0) return 'None';
  return `${count.format(limits.alerts)}, by e-mail${limits.webhookSubscriptions > 0 ? ' or webhook' : ''}`;
};

const reports = (limits: PlanLimits): string => {
  if (limits.historyDays === null) return 'None';
  return limits.historyDays === 'full' ? 'Any period from 2018' : `Periods starting within the last ${limits.historyDays} days`;
};

/** What a plan includes, as the Plan page's cards and the Overview both list it. */
export function PlanIncludes({ limits, price }: { limits: PlanLimits; price?: string }) {
  return (
    <dl class="facts">
      {price !== undefined && (
        <>
          <dt>Price</dt>
          <dd>{price}</dd>
        </>
      )}
      <dt>Requests</dt>
      <dd>{limits.resets ? `${count.format(limits.monthlyRequests)} a month` : `${count.format(limits.monthlyRequests)} once, never reset`}</dd>
      <dt>API keys</dt>
      <dd>{limits.apiKeys}</dd>
      <dt>Historical rates</dt>
      <dd>{history(limits)}</dd>
      <dt>Time series</dt>
      <dd>{limits.timeSeriesDays === null ? 'None' : `Up to ${limits.timeSeriesDays} days`}</dd>
      <dt>Webhooks</dt>
      <dd>{limits.webhookSubscriptions === 0 ? 'None' : `${limits.webhookSubscriptions} subscriptions`}</dd>
      <dt>Rate alerts</dt>
      <dd>{alerts(limits)}</dd>
      <dt>Reports (period averages)</dt>
      <dd>{reports(limits)}</dd>
      <dt>Bulk export</dt>
      <dd>{limits.bulkExport ? 'The whole history in one file (/export)' : 'None'}</dd>
    </dl>
  );
}

/** The link that asks for `plan`: the deployment's page, or a mail already written. */
function askHref(contact: PlanChangeContact, plan: PlanLimits, account: string): string | null {
  if (contact.url) return contact.url;
  if (!contact.email) return null;
  const subject = `Plan change to ${plan.name}`;
  const body = `Please move the account ${account} to the ${plan.name} plan.`;
  return `mailto:${contact.email}?subject=${encodeURIComponent(subject)}&body=${encodeURIComponent(body)}`;
}

function PlanCard({ plan, current, ask }: { plan: Plan; current: boolean; ask: string | null }) {
  const limits = PLAN_LIMITS[plan];
  return (
    <article class={current ? 'card plan current' : 'card plan'} aria-labelledby={`plan-${plan}`} aria-current={current ? 'true' : undefined}>
      <h2 id={`plan-${plan}`}>{limits.name}</h2>
      <p class="plan-badge">{current ? 'Your plan' : '\u00a0'}</p>
      <PlanIncludes limits={limits} price={price(plan)} />
      {!current && ask && (
        <p>
          <a href={ask} aria-label={`Ask for the ${limits.name} plan`}>
            Ask for {limits.name}
          </a>
        </p>
      )}
    </article>
  );
}

export function PlanPage({ assets, frame, current, contact }: { assets: PageAssets; frame: SignedInFrame; current: Plan; contact: PlanChangeContact }) {
  const ask = (plan: Plan) => askHref(contact, PLAN_LIMITS[plan], frame.email);
  return (
    <Layout title="Plan" assets={assets} frame={frame}>
      <h1>Plan</h1>
      <p>{`Your account is on the ${PLAN_LIMITS[current].name} plan. Every plan serves the same rates; they differ in how many requests, keys and days of history they give, and in webhooks, rate alerts, reports and bulk export.`}</p>
      <div class="plans">
        {PLANS.map((plan) => (
          <PlanCard key={plan} plan={plan} current={plan === current} ask={ask(plan)} />
        ))}
      </div>
      <section class="card stack" id="change" aria-labelledby="change-heading">
        <h2 id="change-heading">Changing plan</h2>
        <p>
          A change applies at once and your keys keep working. Moving up from Free starts the first monthly period at 0 requests; between the monthly plans,
          this period's count carries over to the new limit.
        </p>
        {contact.url ? (
          <p>
            <a href={contact.url}>Ask for a plan change</a>
            {contact.email && (
              <>
                {' '}
                or write to <a href={`mailto:${contact.email}`}>{contact.email}</a>
              </>
            )}
            .
          </p>
        ) : contact.email ? (
          <p>
            Write to <a href={`mailto:${contact.email}`}>{contact.email}</a> with the plan you want, from the address you sign in with.
          </p>
        ) : (
          <p>Plans are changed by the people who run this service: ask them for the plan you want.</p>
        )}
      </section>
    </Layout>
  );
}
