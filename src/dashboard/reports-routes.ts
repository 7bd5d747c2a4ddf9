// The Reports page's handlers: the page with a period's figures, and its CSV and workbook downloads.
import type { Logger } from 'pino';
import { graphql } from '../graphql.js';
import { AVERAGES, averagesCsv, averagesWorkbook, type AveragesResult } from '../rest/averages.js';
import type { Answer } from '../rest/exchange.js';
import type { StreamedBody } from '../rest/streamed-body.js';
import type { SessionViewer } from '../schema/context.js';
import { ASSETS, type DashboardRequest, type PageKit, type PageRoutes } from './page-kit.js';
import { ReportsPage } from './reports-page.js';
import { Reports, type RunAverages } from './reports.js';

export const reportsDocuments = {
  averages: AVERAGES,
  newestRateDate: graphql('query { serviceStatus { newestRateDate } }'),
};

export function reportsRoutes({ run, page, frameOf, signedIn, services }: PageKit, logger: Logger): PageRoutes {
  const reports = new Reports(services, logger);
  const runAverages =
    (session: SessionViewer): RunAverages =>
    (variables) =>
      run(reportsDocuments.averages, variables, session);

  /** A Reports download: the period's figures as the API's file of the same format (one unit). */
  async function reportFile(req: DashboardRequest, file: (period: string, result: AveragesResult) => StreamedBody): Promise<Answer> {
    const session = signedIn(req);
    const { period, result } = await reports.download(session, req.url.searchParams, runAverages(session));
    const body = file(period, result);
    return { status: 200, body, headers: { ...body.headers(), 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' } };
  }

  return {
    '/dashboard/reports': {
      GET: async (req) => {
        const session = signedIn(req);
        // The picker opens on the newest period with rates: none after the newest rate date is offered.
        const { serviceStatus } = await run(reportsDocuments.newestRateDate, {}, session);
        const { status, data } = await reports.page(session, req.url.searchParams, runAverages(session), serviceStatus.newestRateDate);
        return page(status, ReportsPage({ assets: ASSETS, frame: frameOf(req, session.account, 'reports'), data }));
      },
    },
    '/dashboard/reports/csv': { GET: (req) => reportFile(req, (period, result) => averagesCsv(period, result.periodAverages)) },
    '/dashboard/reports/xlsx': { GET: (req) => reportFile(req, averagesWorkbook) },
  };
}
