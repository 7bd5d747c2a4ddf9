// The Usage page's handler: the quota's count and the account's usage of this period and the last.
import { graphql } from '../graphql.js';
import { ASSETS, type PageKit, type PageRoutes } from './page-kit.js';
import { UsagePage, type UsageData } from './usage-page.js';

/** One period of the Usage page; unmasked, so the page reads its fields from the query's result. */
const PERIOD_USAGE = graphql(`
  fragment period on PeriodUsage @_unmask {
    from
    to
    totalRequests
    refusedRequests
    days {
      day
      requests
    }
    byEndpoint {
      endpoint
      requests
    }
    byKey {
      keyId
      prefix
      lastFour
      requests
    }
    byOutcome {
      outcome
      requests
    }
  }
`);

export const usageDocuments = {
  usage: graphql(
    `
      query {
        sessionAccount {
          email
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
              ...period
            }
            previous {
              ...period
            }
          }
        }
      }
    `,
    [PERIOD_USAGE],
  ),
};

export function usageRoutes({ run, page, frameOf, signedIn }: PageKit): PageRoutes {
  return {
    '/dashboard/usage': {
      GET: async (req) => {
        const { sessionAccount: account } = await run(usageDocuments.usage, {}, signedIn(req));
        const data: UsageData = { planName: account.planLimits.name, resets: account.planLimits.resets, quota: account.quota, ...account.usage };
        return page(200, UsagePage({ assets: ASSETS, frame: frameOf(req, account, 'usage'), data }));
      },
    },
  };
}
