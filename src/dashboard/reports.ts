// The Reports page's requests (src/dashboard/reports-page.tsx): the period picked, run through the
// core as GET /averages runs it (the signed-in account as viewer, so its plan's rules apply), and
// metered like it: a view or a download that succeeds takes one unit of the account's quota, after
// every other refusal (D11, D17 in docs/decisions.md); a refused one takes none.
import type { Logger } from 'pino';
import { sydneyDate } from '../domain/calendar.js';
import { namedPeriod } from '../domain/period-averages.js';
import { PLAN_LIMITS } from '../domain/plans.js';
import { AccountSuspendedError, BadRequestError, DomainError } from '../errors.js';
import type { AveragesResult } from '../rest/averages.js';
import { MonthlyQuota } from '../rest/monthly-quota.js';
import type { SessionViewer } from '../schema/context.js';
import type { Services } from '../services.js';
import type { ReportsData } from './reports-page.js';

export interface AveragesVariables {
  start: string;
  end: string;
  codes: null;
  byMonth: boolean;
}

/** Runs the averages operation for the session (the dashboard's `run`). */
export type RunAverages = (variables: AveragesVariables) => Promise<AveragesResult>;

/** Refusals the page shows beside its picker rather than on a page of their own. */
const SHOWN_REFUSALS: Partial<Record<string, number>> = { plan_restricted: 403, not_found: 404 };

export class Reports {
  private readonly quota: MonthlyQuota;

  constructor(
    private readonly services: Services,
    logger: Logger,
  ) {
    // A unit is one statement that commits by itself, on either storage; the REST facade's quota
    // batches its requests' grants, a page view needs no such thing.
    this.quota = new MonthlyQuota(services.db, services.clock, { commitApart: false, logger });
  }

  /** The page's data: the picker alone, or a period's figures (one unit) or why there are none (none). */
  async page(session: SessionViewer, query: URLSearchParams, run: RunAverages, newestRateDate: string | null): Promise<{ status: number; data: ReportsData }> {
    const { account } = session;
    const limits = PLAN_LIMITS[account.plan];
    const newest = newestRateDate ?? sydneyDate(this.services.clock());
    const data: ReportsData = { planName: limits.name, available: limits.historyDays !== null, newest };
    const text = query.get('period');
    if (text === null || !data.available) return { status: 200, data };
    try {
      const { period, result } = await this.averages(session, text, run, true);
      return { status: 200, data: { ...data, shown: { period, averages: result.periodAverages } } };
    } catch (error) {
      const status = error instanceof DomainError ? SHOWN_REFUSALS[error.code] : undefined;
      if (!status || !(error instanceof DomainError)) throw error;
      return { status, data: { ...data, shown: { period: text.trim().toUpperCase(), refusal: error.message } } };
    }
  }

  /** A period's figures for a download, CSV or workbook (one unit). */
  async download(session: SessionViewer, query: URLSearchParams, run: RunAverages): Promise<{ period: string; result: AveragesResult }> {
    const interval = query.get('interval');
    if (interval !== null && interval !== 'month') throw new BadRequestError('The only interval is month.');
    return this.averages(session, query.get('period') ?? '', run, interval === 'month');
  }

  private async averages(session: SessionViewer, text: string, run: RunAverages, byMonth: boolean) {
    // a suspended account's keys are refused: so are its reports, which are the same request
    if (session.account.status === 'suspended') throw new AccountSuspendedError('This account is suspended: reports, like its API keys, are refused.');
    const named = namedPeriod(text);
    if (!named) throw new BadRequestError('Pick a period from the list: a financial year, a calendar year, a half, a quarter or a month.');
    const result = await run({ start: named.start, end: named.end, codes: null, byMonth });
    const { account } = session;
    await this.quota.take({ accountId: account.id, plan: account.plan, billingDay: account.billing_day });
    return { period: named.name, result };
  }
}
