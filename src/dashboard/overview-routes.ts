// The dashboard's front page: the sign-in form without a session, the Overview with one.
import { graphql } from '../graphql.js';
import { OverviewPage } from './overview-page.js';
import { ASSETS, type PageKit, type PageRoutes } from './page-kit.js';
import { SignInPage } from './sign-in-page.js';

export const overviewDocuments = {
  overview: graphql(`
    query {
      sessionAccount {
        email
        plan
        status
        planLimits {
          name
          resets
        }
        quota {
          limit
          used
          remaining
          resetsAt
        }
        usage {
          current {
            refusedRequests
          }
        }
      }
      serviceStatus {
        state
        stale
        newestRateDate
        lastUpdate
        nextUpdateExpected
      }
    }
  `),
};

export function overviewRoutes({ run, page, frameOf, services }: PageKit): PageRoutes {
  return {
    '/dashboard': {
      GET: async (req) => {
        if (!req.session) return page(200, SignInPage({ assets: ASSETS }));
        const { sessionAccount: account, serviceStatus: status } = await run(overviewDocuments.overview, {}, req.session);
        return page(200, OverviewPage({ assets: ASSETS, frame: frameOf(req, account, 'overview'), data: { account, status, now: services.clock() } }));
      },
    },
  };
}
