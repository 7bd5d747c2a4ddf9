// The Overview page: the account, the quota's count, what the plan includes and the data's state.
import { count, dateInWords, When } from './formats.js';
import { PLAN_LIMITS, type Plan } from '../domain/plans.js';
import { Layout, type PageAssets, type SignedInFrame } from './layout.js';
import { PlanIncludes } from './plan-page.js';

export interface OverviewData {
  account: {
    email: string;
    plan: Plan;
    planLimits: { name: string; resets: boolean };
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
        <PlanIncludes limits={PLAN_LIMITS[data.account.plan]} />
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
