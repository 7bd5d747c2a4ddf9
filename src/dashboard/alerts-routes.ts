// The Alerts page's handlers: list and create alerts, test, pause or resume, delete after a
// confirmation, and the pause link an alert's e-mail carries.
import type { VNode } from 'preact';
import type { Account } from '../db/database.js';
import { PUBLISHED_CODES } from '../domain/currencies.js';
import { PLAN_LIMITS, PLANS_WITH_ALERTS } from '../domain/plans.js';
import { BadRequestError, NotFoundError } from '../errors.js';
import { graphql } from '../graphql.js';
import { ALERT_PAUSE_PATH } from '../mail/alert-links.js';
import type { SessionViewer } from '../schema/context.js';
import { AlertsPage, alertInWords, ConfirmPauseAlertPage, DeleteAlertPage, type AlertForm, type AlertsData, type AlertTestNotice } from './alerts-page.js';
import { MessagePage } from './layout.js';
import { ASSETS, type DashboardRequest, type PageKit, type PageRoutes } from './page-kit.js';
import { inPlainWords } from './webhooks-page.js';

/** The first plan with alerts, which a plan without them is shown. */
const ALERTS_UPGRADE = PLAN_LIMITS[PLANS_WITH_ALERTS[0]!];

export const alertsDocuments = {
  alerts: graphql(`
    query {
      sessionAccount {
        email
        status
        plan
        planLimits {
          name
          webhookSubscriptions
        }
      }
      alerts {
        limit
        alerts {
          id
          currency
          condition
          value
          channels
          description
          isActive
          lastTriggeredAt
          triggerCount
          createdAt
        }
        recentFirings {
          alertId
          currency
          condition
          level
          date
          value
          previousDate
          previousValue
          firedAt
        }
      }
    }
  `),
  createAlert: graphql('mutation($input: CreateAlertInput!) { createAlert(input: $input) { id } }'),
  testAlert: graphql('mutation($id: Text!) { testAlert(id: $id) { email { sent message } webhooks { url delivered message } } }'),
  setAlertActive: graphql('mutation($id: Text!, $isActive: Boolean!) { setAlertActive(id: $id, isActive: $isActive) { id } }'),
  deleteAlert: graphql('mutation($id: Text!) { deleteAlert(id: $id) }'),
  pausableAlert: graphql('query($token: Text!) { pausableAlert(token: $token) { currency condition value isActive } }'),
  pauseAlertByLink: graphql('mutation($token: Text!) { pauseAlertByLink(token: $token) { currency condition value } }'),
};

export function alertsRoutes({ run, page, redirect, frameOf, signedIn, signedInForm, checkSameOrigin, formOf }: PageKit): PageRoutes {
  async function alertsOf(session: SessionViewer): Promise<AlertsData & { account: Pick<Account, 'email' | 'status'> }> {
    const { sessionAccount: account, alerts: list } = await run(alertsDocuments.alerts, {}, session);
    return {
      account,
      planName: account.planLimits.name,
      limit: list.limit,
      webhooks: account.planLimits.webhookSubscriptions > 0,
      upgrade: ALERTS_UPGRADE,
      currencies: PUBLISHED_CODES,
      alerts: list.alerts,
      firings: list.recentFirings,
    };
  }

  async function alertsPage(req: DashboardRequest, session: SessionViewer, extra: { test?: AlertTestNotice; form?: AlertForm } = {}): Promise<VNode> {
    const data = await alertsOf(session);
    return AlertsPage({ assets: ASSETS, frame: frameOf(req, data.account, 'alerts'), data, ...extra });
  }

  return {
    '/dashboard/alerts': {
      GET: async (req) => page(200, await alertsPage(req, signedIn(req))),
      POST: async (req) => {
        const { session, form } = await signedInForm(req);
        const sent: AlertForm = {
          currency: form.get('currency') ?? '',
          condition: form.get('condition') ?? '',
          value: (form.get('value') ?? '').trim(),
          channels: form.getAll('channels'),
          description: form.get('description') ?? '',
        };
        try {
          const { description, ...fields } = sent;
          const input = { ...fields, ...(description.trim() !== '' ? { description } : {}) };
          await run(alertsDocuments.createAlert, { input }, session);
          return redirect('/dashboard/alerts');
        } catch (error) {
          if (!(error instanceof BadRequestError)) throw error;
          // The form again with what was sent (cut to what its fields hold) and why it was refused.
          const kept = { ...sent, value: sent.value.slice(0, 20), description: sent.description.slice(0, 200), error: error.message };
          return page(400, await alertsPage(req, session, { form: kept }));
        }
      },
    },
    '/dashboard/alerts/test': {
      POST: async (req) => {
        const { session, form } = await signedInForm(req);
        const { testAlert: test } = await run(alertsDocuments.testAlert, { id: form.get('id') ?? '' }, session);
        const lines = [...(test.email ? [test.email.message] : []), ...test.webhooks.map((w) => `${w.url}: ${inPlainWords(w.message)}`)];
        const ok = (test.email?.sent ?? true) && test.webhooks.every((w) => w.delivered);
        const notice = {
          ok,
          lines: lines.length > 0 ? lines : ['No channel of this alert could take a sample: add a webhook subscription covering its currency.'],
        };
        return page(200, await alertsPage(req, session, { test: notice }));
      },
    },
    '/dashboard/alerts/active': {
      POST: async (req) => {
        const { session, form } = await signedInForm(req);
        const active = form.get('active');
        if (active !== 'true' && active !== 'false') throw new BadRequestError('This form must say whether to pause or resume. Reload the page and try again.');
        await run(alertsDocuments.setAlertActive, { id: form.get('id') ?? '', isActive: active === 'true' }, session);
        return redirect('/dashboard/alerts');
      },
    },
    '/dashboard/alerts/delete': {
      GET: async (req) => {
        const session = signedIn(req);
        const data = await alertsOf(session);
        const alert = data.alerts.find((a) => a.id === req.url.searchParams.get('id'));
        if (!alert) throw new NotFoundError('This account has no alert with that id.');
        return page(200, DeleteAlertPage({ assets: ASSETS, frame: frameOf(req, data.account, 'alerts'), alert }));
      },
      POST: async (req) => {
        const { session, form } = await signedInForm(req);
        await run(alertsDocuments.deleteAlert, { id: form.get('id') ?? '' }, session);
        return redirect('/dashboard/alerts');
      },
    },
    [ALERT_PAUSE_PATH]: {
      // Opening the link only shows a button: a mail scanner that fetches it pauses nothing.
      GET: async (req) => {
        const token = req.url.searchParams.get('token') ?? '';
        const { pausableAlert: alert } = await run(alertsDocuments.pausableAlert, { token }, null);
        return page(200, ConfirmPauseAlertPage({ assets: ASSETS, token, alert }));
      },
      POST: async (req) => {
        checkSameOrigin(req);
        const token = (await formOf(req)).get('token') ?? '';
        const { pauseAlertByLink: alert } = await run(alertsDocuments.pauseAlertByLink, { token }, null);
        const message = `Paused: ${alertInWords(alert)}. It sends nothing until you resume it on the dashboard's Alerts page.`;
        return page(200, MessagePage({ assets: ASSETS, title: 'Alert paused', message }));
      },
    },
  };
}
