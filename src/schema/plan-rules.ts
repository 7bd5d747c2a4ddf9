// The plans' history and time-series windows (D13 in docs/decisions.md), enforced from the viewer's
// plan: an API key's account's or a dashboard session's. Only the operator is never restricted; an
// anonymous viewer reaches no dated rates at all (the `datedRates` scope refuses it first).
import { addDays, daysBetween, sydneyDate } from '../domain/calendar.js';
import { PLAN_LIMITS, PLANS, type Plan, type PlanLimits } from '../domain/plans.js';
import {
  AlertLimitReachedError,
  AlertsNotAvailableError,
  BadRequestError,
  PlanRestrictedError,
  SubscriptionLimitReachedError,
  WebhooksNotAvailableError,
} from '../errors.js';
import type { Context, Viewer } from './context.js';
import { datedRatesRefused } from './viewer-scopes.js';

/** The plan whose windows bind a viewer; null for the operator. */
function planOf(viewer: Viewer): Plan | null {
  switch (viewer.kind) {
    case 'operator':
      return null;
    case 'apiKey':
      return viewer.plan;
    case 'session':
      return viewer.account.plan;
    case 'anonymous':
      throw datedRatesRefused();
  }
}

function historyWindow(limits: PlanLimits, today: string): string {
  if (limits.historyDays === null) return 'no historical rates';
  if (limits.historyDays === 'full') return 'full history from 2018';
  return `the last ${limits.historyDays} days (from ${addDays(today, -limits.historyDays)})`;
}

function reaches(limits: PlanLimits, date: string, today: string): boolean {
  if (limits.historyDays === null) return false;
  return limits.historyDays === 'full' || date >= addDays(today, -limits.historyDays);
}

/** The first plan above `plan` that passes `allows`. */
function upgradeFor(plan: Plan, allows: (limits: PlanLimits) => boolean): PlanLimits {
  const found = PLANS.slice(PLANS.indexOf(plan) + 1).find((p) => allows(PLAN_LIMITS[p]));
  return PLAN_LIMITS[found ?? 'enterprise'];
}

/**
 * A dated request (/{date}, dated /convert, a time series' start) must fall in the plan's history.
 * `what` is the refused thing as the answer names it; `plural` when it takes "are" ("the rates").
 */
export function checkHistory(ctx: Context, date: string, what: string, plural = false): void {
  const plan = planOf(ctx.viewer);
  if (plan === null) return;
  const limits = PLAN_LIMITS[plan];
  const today = sydneyDate(ctx.services.clock());
  if (reaches(limits, date, today)) return;
  const upgrade = upgradeFor(plan, (l) => reaches(l, date, today));
  throw new PlanRestrictedError(
    `The ${limits.name} plan gives ${historyWindow(limits, today)}, so ${what} for ${date} ${plural ? 'are' : 'is'} not included; the ${upgrade.name} plan allows it (${historyWindow(upgrade, today)})`,
  );
}

/**
 * A range must run forwards (a parameter error, 400, for every viewer and before any plan rule, as
 * D11 orders them); then D13: end − start in days must not exceed the plan's time-series range.
 */
export function checkTimeSeries(ctx: Context, start: string, end: string): void {
  if (end < start) throw new BadRequestError('end_date must not be before start_date');
  const plan = planOf(ctx.viewer);
  if (plan === null) return;
  const limits = PLAN_LIMITS[plan];
  const days = daysBetween(start, end);
  if (limits.timeSeriesDays === null) {
    const today = sydneyDate(ctx.services.clock());
    const upgrade = upgradeFor(plan, (l) => (l.timeSeriesDays ?? -1) >= days && reaches(l, start, today));
    throw new PlanRestrictedError(
      `The ${limits.name} plan has no time-series access; the ${upgrade.name} plan allows ranges of up to ${upgrade.timeSeriesDays} days with ${historyWindow(upgrade, today)}`,
    );
  }
  if (days > limits.timeSeriesDays) {
    const upgrade = upgradeFor(plan, (l) => (l.timeSeriesDays ?? -1) >= days);
    const allowed = (upgrade.timeSeriesDays ?? 0) >= days;
    throw new PlanRestrictedError(
      `The ${limits.name} plan allows time series of up to ${limits.timeSeriesDays} days; ${start} to ${end} spans ${days}` +
        (allowed ? `; the ${upgrade.name} plan allows up to ${upgrade.timeSeriesDays} days` : '; no plan allows more than 365 days: split the range'),
    );
  }
  checkHistory(ctx, start, 'a time series starting');
}

/** The longest range of period averages (D37): end − start in days; every named period fits. */
export const MAX_AVERAGES_DAYS = 365;

/**
 * Period averages (D37): the range must run forwards and span at most MAX_AVERAGES_DAYS (parameter
 * errors, 400, checked first as D11 orders them); then the plan: none on Free, Starter only inside
 * its history window (any length), Professional and up any range (the time-series limit does not
 * apply: one answer per code).
 */
export function checkPeriodAverages(ctx: Context, start: string, end: string): void {
  if (end < start) throw new BadRequestError('end_date must not be before start_date');
  const days = daysBetween(start, end);
  if (days > MAX_AVERAGES_DAYS) {
    throw new BadRequestError(`A range of period averages may span at most ${MAX_AVERAGES_DAYS} days; ${start} to ${end} spans ${days}`);
  }
  const plan = planOf(ctx.viewer);
  if (plan === null) return;
  const limits = PLAN_LIMITS[plan];
  if (limits.historyDays === null) {
    const today = sydneyDate(ctx.services.clock());
    const upgrade = upgradeFor(plan, (l) => reaches(l, start, today));
    throw new PlanRestrictedError(
      `The ${limits.name} plan has no period averages; the ${upgrade.name} plan gives them for this period (${historyWindow(upgrade, today)})`,
    );
  }
  checkHistory(ctx, start, 'period averages starting');
}

/** D45: the whole history in one answer comes with Business and Enterprise; the range must run forwards (400 first). */
export function checkBulkExport(ctx: Context, start: string, end: string): void {
  if (end < start) throw new BadRequestError('end_date must not be before start_date');
  const plan = planOf(ctx.viewer);
  if (plan === null || PLAN_LIMITS[plan].bulkExport) return;
  const upgrade = upgradeFor(plan, (l) => l.bulkExport);
  throw new PlanRestrictedError(
    `The ${PLAN_LIMITS[plan].name} plan has no bulk export; the ${upgrade.name} plan exports the whole history, or any range of it, in one answer`,
  );
}

/** Webhook subscriptions come with Professional and above (docs/api.md §8). */
export function checkWebhooksAvailable(plan: Plan): PlanLimits {
  const limits = PLAN_LIMITS[plan];
  if (limits.webhookSubscriptions > 0) return limits;
  const upgrade = upgradeFor(plan, (l) => l.webhookSubscriptions > 0);
  throw new WebhooksNotAvailableError(
    `Webhook subscriptions are not available on the ${limits.name} plan; the ${upgrade.name} plan allows ${upgrade.webhookSubscriptions}`,
  );
}

/** Creating one more subscription must stay within the plan's count. */
export function checkSubscriptionLimit(plan: Plan, existing: number): void {
  const limits = checkWebhooksAvailable(plan);
  if (existing < limits.webhookSubscriptions) return;
  const upgrade = upgradeFor(plan, (l) => l.webhookSubscriptions > existing);
  const more = upgrade.webhookSubscriptions > limits.webhookSubscriptions ? `; the ${upgrade.name} plan allows ${upgrade.webhookSubscriptions}` : '';
  throw new SubscriptionLimitReachedError(
    `The ${limits.name} plan allows ${limits.webhookSubscriptions} webhook subscriptions and this account has ${existing}${more}; delete one to add another`,
  );
}

/** Rate alerts come with Starter and above (e-mail only on Starter). */
export function checkAlertsAvailable(plan: Plan): PlanLimits {
  const limits = PLAN_LIMITS[plan];
  if (limits.alerts > 0) return limits;
  const upgrade = upgradeFor(plan, (l) => l.alerts > 0);
  throw new AlertsNotAvailableError(`Rate alerts are not available on the ${limits.name} plan; the ${upgrade.name} plan allows ${upgrade.alerts}`);
}

/** An alert's webhook channel needs a plan with webhooks; on Starter alerts e-mail only. */
export function checkAlertWebhooks(plan: Plan): void {
  const limits = PLAN_LIMITS[plan];
  if (limits.webhookSubscriptions > 0) return;
  const upgrade = upgradeFor(plan, (l) => l.webhookSubscriptions > 0);
  throw new WebhooksNotAvailableError(
    `The ${limits.name} plan's alerts are sent by e-mail only: the webhook channel needs webhooks, which the ${upgrade.name} plan has`,
  );
}

/** Creating one more alert must stay within the plan's count. */
export function checkAlertLimit(plan: Plan, existing: number): void {
  const limits = checkAlertsAvailable(plan);
  if (existing < limits.alerts) return;
  const upgrade = upgradeFor(plan, (l) => l.alerts > existing);
  const more = upgrade.alerts > limits.alerts ? `; the ${upgrade.name} plan allows ${upgrade.alerts}` : '';
  throw new AlertLimitReachedError(
    `The ${limits.name} plan allows ${limits.alerts} rate alerts and this account has ${existing}${more}; delete one to add another`,
  );
}
