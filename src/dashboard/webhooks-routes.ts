// The Webhooks page's handlers: list and create subscriptions, send a test, redeliver, pause or
// re-activate, and delete after a confirmation.
import type { VNode } from 'preact';
import type { Account } from '../db/database.js';
import { CURRENCY_CODES } from '../domain/currencies.js';
import { PLAN_LIMITS, PLANS_WITH_WEBHOOKS } from '../domain/plans.js';
import { BadRequestError, NotFoundError } from '../errors.js';
import { graphql } from '../graphql.js';
import type { SessionViewer } from '../schema/context.js';
import { parseCurrencyList } from './currency-list.js';
import { ASSETS, type DashboardRequest, type PageKit, type PageRoutes } from './page-kit.js';
import { attemptNotice, DeleteSubscriptionPage, testNotice, WebhooksPage, type CreateForm, type WebhooksData, type WebhooksNotice } from './webhooks-page.js';

/** The first plan with webhooks, which a plan without them is shown. */
const WEBHOOKS_UPGRADE = PLAN_LIMITS[PLANS_WITH_WEBHOOKS[0]!];
/** "every currency" today: every served code but the base */
const ALL_CURRENCIES = CURRENCY_CODES.length - 1;

export const webhooksDocuments = {
  webhooks: graphql(`
    query {
      sessionAccount {
        email
        status
        planLimits {
          name
        }
      }
      webhookSubscriptions {
        limit
        subscriptions {
          id
          url
          currencies
          description
          isActive
          failureCount
          lastSuccessAt
          createdAt
          recentDeliveries {
            deliveryId
            event
            rateDate
            attempt
            attemptedAt
            durationMs
            httpStatus
            error
            delivered
            nextAttemptAt
            requestBody
            responseBody
          }
        }
      }
    }
  `),
  createWebhook: graphql(`
    mutation ($input: CreateWebhookSubscriptionInput!) {
      createWebhookSubscription(input: $input) {
        signingSecret
        subscription {
          url
        }
      }
    }
  `),
  testWebhook: graphql('mutation($id: Text!) { testWebhookSubscription(id: $id) { delivered } }'),
  setWebhookActive: graphql('mutation($id: Text!, $isActive: Boolean!) { setWebhookSubscriptionActive(id: $id, isActive: $isActive) { id } }'),
  deleteWebhook: graphql('mutation($id: Text!) { deleteWebhookSubscription(id: $id) }'),
  redeliverWebhook: graphql('mutation($id: Text!, $deliveryId: Text!) { redeliverWebhookDelivery(id: $id, deliveryId: $deliveryId) { id } }'),
};

export function webhooksRoutes({ run, page, redirect, frameOf, signedIn, signedInForm }: PageKit): PageRoutes {
  async function webhooksOf(session: SessionViewer): Promise<WebhooksData & { account: Pick<Account, 'email' | 'status'> }> {
    const { sessionAccount: account, webhookSubscriptions: list } = await run(webhooksDocuments.webhooks, {}, session);
    return {
      account,
      planName: account.planLimits.name,
      limit: list.limit,
      upgrade: WEBHOOKS_UPGRADE,
      allCurrencies: ALL_CURRENCIES,
      subscriptions: list.subscriptions,
    };
  }

  async function webhooksPage(req: DashboardRequest, session: SessionViewer, extra: { notice?: WebhooksNotice; form?: CreateForm } = {}): Promise<VNode> {
    const data = await webhooksOf(session);
    return WebhooksPage({ assets: ASSETS, frame: frameOf(req, data.account, 'webhooks'), data, ...extra });
  }

  return {
    '/dashboard/webhooks': {
      // After Send test or Redeliver the browser lands here (the form is not sent again on reload):
      // the notice is the result of the attempt it made, read from the delivery log.
      GET: async (req) => {
        const data = await webhooksOf(signedIn(req));
        const query = req.url.searchParams;
        const tested = data.subscriptions.find((s) => s.id === query.get('tested'));
        const redelivered = data.subscriptions.find((s) => s.id === query.get('redelivered'));
        const delivery = query.get('delivery');
        const test = tested ? testNotice(tested) : null;
        const redelivery = redelivered && delivery ? attemptNotice(redelivered, (a) => a.deliveryId === delivery) : null;
        const notice: WebhooksNotice = { ...(test ? { test } : {}), ...(redelivery ? { redelivery } : {}) };
        return page(200, WebhooksPage({ assets: ASSETS, frame: frameOf(req, data.account, 'webhooks'), data, notice }));
      },
      POST: async (req) => {
        const { session, form } = await signedInForm(req);
        const sent: CreateForm = { url: (form.get('url') ?? '').trim(), currencies: form.get('currencies') ?? '', description: form.get('description') ?? '' };
        try {
          const currencies = parseCurrencyList(sent.currencies);
          const input = { url: sent.url, ...(currencies ? { currencies } : {}), ...(sent.description.trim() !== '' ? { description: sent.description } : {}) };
          const { createWebhookSubscription: created } = await run(webhooksDocuments.createWebhook, { input }, session);
          return page(200, await webhooksPage(req, session, { notice: { created: { url: created.subscription.url, signingSecret: created.signingSecret } } }));
        } catch (error) {
          if (!(error instanceof BadRequestError)) throw error;
          // The form again with what was sent (cut to what its fields hold) and why it was refused.
          const kept = { url: sent.url.slice(0, 2048), currencies: sent.currencies.slice(0, 400), description: sent.description.slice(0, 200) };
          return page(400, await webhooksPage(req, session, { form: { ...kept, error: error.message } }));
        }
      },
    },
    '/dashboard/webhooks/test': {
      POST: async (req) => {
        const { session, form } = await signedInForm(req);
        const id = form.get('id') ?? '';
        await run(webhooksDocuments.testWebhook, { id }, session);
        return redirect(`/dashboard/webhooks?tested=${encodeURIComponent(id)}#sub-${encodeURIComponent(id)}`);
      },
    },
    '/dashboard/webhooks/redeliver': {
      POST: async (req) => {
        const { session, form } = await signedInForm(req);
        const id = form.get('id') ?? '';
        const { redeliverWebhookDelivery: delivery } = await run(webhooksDocuments.redeliverWebhook, { id, deliveryId: form.get('delivery') ?? '' }, session);
        return redirect(`/dashboard/webhooks?redelivered=${encodeURIComponent(id)}&delivery=${encodeURIComponent(delivery.id)}#sub-${encodeURIComponent(id)}`);
      },
    },
    '/dashboard/webhooks/active': {
      POST: async (req) => {
        const { session, form } = await signedInForm(req);
        const active = form.get('active');
        if (active !== 'true' && active !== 'false')
          throw new BadRequestError('This form must say whether to pause or re-activate. Reload the page and try again.');
        await run(webhooksDocuments.setWebhookActive, { id: form.get('id') ?? '', isActive: active === 'true' }, session);
        return redirect('/dashboard/webhooks');
      },
    },
    '/dashboard/webhooks/delete': {
      GET: async (req) => {
        const session = signedIn(req);
        const data = await webhooksOf(session);
        const subscription = data.subscriptions.find((s) => s.id === req.url.searchParams.get('id'));
        if (!subscription) throw new NotFoundError('This account has no webhook subscription with that id.');
        return page(200, DeleteSubscriptionPage({ assets: ASSETS, frame: frameOf(req, data.account, 'webhooks'), subscription }));
      },
      POST: async (req) => {
        const { session, form } = await signedInForm(req);
        await run(webhooksDocuments.deleteWebhook, { id: form.get('id') ?? '' }, session);
        return redirect('/dashboard/webhooks');
      },
    },
  };
}
