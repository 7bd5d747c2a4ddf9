// The Plan page's handler.
import { graphql } from '../graphql.js';
import { ASSETS, type PageKit, type PageRoutes } from './page-kit.js';
import { PlanPage, type PlanChangeContact } from './plan-page.js';

export const planDocuments = {
  plan: graphql('query { sessionAccount { email status plan } }'),
};

export function planRoutes({ run, page, frameOf, signedIn }: PageKit, planChange: PlanChangeContact): PageRoutes {
  return {
    '/dashboard/plan': {
      GET: async (req) => {
        const { sessionAccount: account } = await run(planDocuments.plan, {}, signedIn(req));
        return page(200, PlanPage({ assets: ASSETS, frame: frameOf(req, account, 'plan'), current: account.plan, contact: planChange }));
      },
    },
  };
}
