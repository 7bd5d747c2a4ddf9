// Rate alerts (docs/api.md §4.3): the viewer's own, created, listed, paused, removed and tested
// here, and paused by an e-mailed link. Firing them is the publication's (src/jobs/import-rates.ts),
// sending their e-mails src/jobs/alert-mail.ts's.
import { randomBytes, randomUUID } from 'node:crypto';
import { findAccountById, lockAccount } from '../db/accounts.js';
import {
  countAlerts,
  deleteAlert,
  findAlert,
  findPausableAlert,
  insertAlert,
  listRecentFirings,
  pauseAlert,
  setAlertActive,
  type FiringRecord,
  type ListedAlert,
  type PausableAlert,
} from '../db/alerts.js';
import { ALERT_CHANNELS, ALERT_CONDITIONS, type AlertChannel, type AlertCondition } from '../db/database.js';
import { insertAttempts } from '../db/webhook-rollups.js';
import { alertValueFault } from '../domain/alerts.js';
import { addDays } from '../domain/calendar.js';
import { codeOf, isPublishedCode } from '../domain/currencies.js';
import { PLAN_LIMITS } from '../domain/plans.js';
import { BadRequestError, NotFoundError, ServiceUnavailableError } from '../errors.js';
import { alertMail, type AlertMailFiring } from '../mail/alert-mail.js';
import { alertPayload } from '../webhooks/payload.js';
import { signedDelivery } from '../webhooks/sign.js';
import { AccountRef } from './account.js';
import { builder } from './builder.js';
import { CurrencyCodeEnum } from './currency.js';
import type { CurrencyCode } from '../domain/currencies.js';
import type { Context } from './context.js';
import { checkAlertLimit, checkAlertsAvailable, checkAlertWebhooks } from './plan-rules.js';
import { requireActiveSubscriber, requireSubscriber } from './webhook-subscription.js';

const ALERT_ID = /^[0-9a-f]{32}$/;
const MAX_DESCRIPTION = 200;
/** firings the dashboard's history shows */
export const RECENT_FIRINGS = 20;
/** How refusals name these resources (a sentence's start, and its middle). */
const RATE_ALERTS = { start: 'Rate alerts', middle: 'rate alerts' } as const;

const noSuchAlert = (id: string) => new NotFoundError(`No rate alert ${id}`);

const AlertConditionEnum = builder.enumType('AlertCondition', { values: ALERT_CONDITIONS });
const AlertChannelEnum = builder.enumType('AlertChannel', { values: ALERT_CHANNELS });

export const AlertRef = builder.objectRef<ListedAlert>('Alert').implement({
  description: 'A condition on one currency, checked at every publication; it fires at most once per rate day',
  fields: (t) => ({
    id: t.exposeString('id'),
    currency: t.expose('currency', { type: CurrencyCodeEnum }),
    condition: t.expose('condition', { type: AlertConditionEnum }),
    value: t.expose('value', { type: 'Decimal', description: 'A rate level (above, below) or a percentage (change_pct)' }),
    channels: t.expose('channels', { type: [AlertChannelEnum], description: 'email, webhook or both' }),
    description: t.exposeString('description', { nullable: true }),
    isActive: t.exposeBoolean('isActive'),
    lastTriggeredAt: t.expose('lastTriggeredAt', { type: 'DateTime', nullable: true, description: 'When it last fired; null until it fires' }),
    triggerCount: t.exposeInt('triggerCount', { description: 'How many times it fired (tests are not counted)' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const AlertFiringRef = builder.objectRef<FiringRecord>('AlertFiring').implement({
  description: 'One firing of an alert at a publication',
  fields: (t) => ({
    alertId: t.exposeString('alertId'),
    currency: t.exposeString('currency'),
    condition: t.exposeString('condition'),
    level: t.expose('level', { type: 'Decimal', description: "The alert's value when it fired" }),
    date: t.expose('date', { type: 'LocalDate' }),
    value: t.expose('value', { type: 'Decimal', description: 'The rate that fired it' }),
    previousDate: t.expose('previousDate', { type: 'LocalDate' }),
    previousValue: t.expose('previousValue', { type: 'Decimal' }),
    firedAt: t.expose('firedAt', { type: 'DateTime' }),
  }),
});

const AlertListRef = builder.objectRef<{ alerts: ListedAlert[]; limit: number; accountId: string }>('AlertList').implement({
  fields: (t) => ({
    alerts: t.field({ type: [AlertRef], resolve: (l) => l.alerts }),
    limit: t.exposeInt('limit', { description: "The plan's maximum number of alerts" }),
    recentFirings: t.field({
      type: [AlertFiringRef],
      description: `The account's latest ${RECENT_FIRINGS} firings, newest first`,
      resolve: (l, _args, ctx) => listRecentFirings(ctx.services.db, l.accountId, RECENT_FIRINGS),
    }),
  }),
});

interface WebhookTest {
  subscriptionId: string;
  url: string;
  delivered: boolean;
  responseStatus: number;
  message: string;
}

interface AlertTest {
  email: { to: string; sent: boolean; message: string } | null;
  webhooks: WebhookTest[];
}

const AlertEmailTestRef = builder.objectRef<NonNullable<AlertTest['email']>>('AlertEmailTest').implement({
  fields: (t) => ({
    to: t.exposeString('to'),
    sent: t.exposeBoolean('sent', { description: 'The mail server (or the outbox) took the message' }),
    message: t.exposeString('message'),
  }),
});

const AlertWebhookTestRef = builder.objectRef<WebhookTest>('AlertWebhookTest').implement({
  fields: (t) => ({
    subscriptionId: t.exposeString('subscriptionId'),
    url: t.exposeString('url'),
    delivered: t.exposeBoolean('delivered', { description: 'The receiver answered 2xx in time' }),
    responseStatus: t.exposeInt('responseStatus', { description: "The receiver's HTTP status; 0 when it gave none" }),
    message: t.exposeString('message'),
  }),
});

const AlertTestRef = builder.objectRef<AlertTest>('AlertTest').implement({
  fields: (t) => ({
    email: t.field({ type: AlertEmailTestRef, nullable: true, description: 'The e-mail sent; null without the email channel', resolve: (r) => r.email }),
    webhooks: t.field({
      type: [AlertWebhookTestRef],
      resolve: (r) => r.webhooks,
      description: "One rates.test delivery per active subscription of the account that covers the alert's currency; empty without the webhook channel",
    }),
  }),
});

const PausableAlertRef = builder.objectRef<PausableAlert>('PausableAlert').implement({
  description: 'What an e-mailed pause link names',
  fields: (t) => ({
    id: t.exposeString('id'),
    currency: t.exposeString('currency'),
    condition: t.exposeString('condition'),
    value: t.expose('value', { type: 'Decimal' }),
    isActive: t.exposeBoolean('isActive'),
  }),
});

const CreateInput = builder.inputType('CreateAlertInput', {
  fields: (t) => ({
    currency: t.field({ type: 'Text', required: true }),
    condition: t.field({ type: 'Text', required: true, description: 'above, below or change_pct' }),
    value: t.field({ type: 'Text', required: true, description: 'A positive decimal of at most 6 places, as text: a rate level or a percentage' }),
    channels: t.field({ type: ['Text'], required: true, description: 'A non-empty subset of email and webhook' }),
    description: t.field({ type: 'Text' }),
  }),
});

interface AlertFields {
  currency: CurrencyCode;
  condition: AlertCondition;
  value: string;
  channels: AlertChannel[];
  description: string | null;
}

/** Every field of a new alert, each with the reason it is refused (400). */
function checkFields(input: {
  currency: string;
  condition: string;
  value: string;
  channels: readonly string[];
  description?: string | null | undefined;
}): AlertFields {
  const { condition, value, channels } = input;
  const currency = codeOf(input.currency);
  if (currency === 'AUD') throw new BadRequestError('currency: AUD is the base currency and has no rate of its own to watch');
  if (!isPublishedCode(currency))
    throw new BadRequestError(`currency: '${input.currency.slice(0, 20)}' is not a supported code; see /symbols for the 20 codes`);
  if (!(ALERT_CONDITIONS as readonly string[]).includes(condition)) {
    throw new BadRequestError(`condition must be one of ${ALERT_CONDITIONS.join(', ')}`);
  }
  const fault = alertValueFault(value);
  if (fault !== null) throw new BadRequestError(`value ${fault}`);
  if (channels.length === 0) throw new BadRequestError('channels must name at least one of email, webhook');
  const seen = new Set<string>();
  for (const channel of channels) {
    if (!(ALERT_CHANNELS as readonly string[]).includes(channel)) {
      throw new BadRequestError(`channels: '${channel.slice(0, 20)}' is not a channel; use email, webhook or both`);
    }
    if (seen.has(channel)) throw new BadRequestError(`channels: ${channel} appears twice`);
    seen.add(channel);
  }
  const description = input.description ?? null;
  if (description !== null && [...description].length > MAX_DESCRIPTION) {
    throw new BadRequestError(`description must be at most ${MAX_DESCRIPTION} characters`);
  }
  return { currency, condition: condition as AlertCondition, value, channels: [...channels] as AlertChannel[], description };
}

/** The viewer's alert; another account's and an unknown id look the same (404). */
async function ownAlert(ctx: Context, id: string): Promise<ListedAlert> {
  const viewer = requireSubscriber(ctx, RATE_ALERTS.start);
  const alert = ALERT_ID.test(id) ? await findAlert(ctx.services.db, viewer.accountId, id) : undefined;
  if (!alert) throw noSuchAlert(id);
  return alert;
}

/** A sample firing for a test: the newest rate of the alert's code and the one before it. */
async function sampleFiring(ctx: Context, alert: ListedAlert): Promise<AlertMailFiring & { alertId: string }> {
  const history = await ctx.rates.history();
  const newest = history.newestDate === null ? undefined : history.newestWith([alert.currency], history.newestDate);
  const previous = newest && history.newestWith([alert.currency], addDays(newest.date, -1));
  if (!newest || !previous) throw new ServiceUnavailableError(`Not enough ${alert.currency} rates have been published to this service yet to test with`);
  return {
    alertId: alert.id,
    currency: alert.currency,
    condition: alert.condition,
    level: alert.value,
    date: newest.date,
    value: newest.rates[alert.currency]!,
    previousDate: previous.date,
    previousValue: previous.rates[alert.currency]!,
  };
}

async function testWebhooks(ctx: Context, accountId: string, firing: AlertMailFiring & { alertId: string }): Promise<WebhookTest[]> {
  const { db, webhooks, clock } = ctx.services;
  const subscriptions = (await ctx.loaders.subscriptionsOfAccount.load(accountId)).filter(
    (s) => s.is_active && (s.currencies === null || s.currencies.includes(firing.currency)),
  );
  return Promise.all(
    subscriptions.map(async (subscription) => {
      const deliveryId = randomUUID();
      const payload = alertPayload('rates.test', deliveryId, firing);
      const started = performance.now();
      const result = await webhooks.send(
        signedDelivery(subscription.url, 'rates.test', deliveryId, payload, webhooks.box.open(subscription.secret_ciphertext)),
      );
      await insertAttempts(db, [
        {
          delivery_id: deliveryId,
          subscription_id: subscription.id,
          event: 'rates.test',
          rate_date: firing.date,
          attempt: 1,
          attempted_at: clock(),
          duration_ms: Math.round(performance.now() - started),
          http_status: result.status,
          error: result.error,
          outcome: result.ok ? 'delivered' : 'failed',
          request_body: payload,
          response_body: result.responseBody,
        },
      ]);
      return {
        subscriptionId: subscription.id,
        url: subscription.url,
        delivered: result.ok,
        responseStatus: result.status ?? 0,
        message: result.ok
          ? `Test delivery ${deliveryId} acknowledged with ${result.status}`
          : `Test delivery ${deliveryId} failed: ${result.error ?? `the receiver answered ${result.status}`}`,
      };
    }),
  );
}

async function testEmail(ctx: Context, accountId: string, firing: AlertMailFiring & { alertId: string }): Promise<NonNullable<AlertTest['email']>> {
  const account = ctx.viewer.kind === 'session' ? ctx.viewer.account : await findAccountById(ctx.services.db, accountId);
  if (!account) throw new NotFoundError('The account of this key no longer exists');
  const { mailer, alertLinks } = ctx.services;
  try {
    await mailer.send(alertMail(account.email, firing, alertLinks.pauseUrl(firing.alertId), true));
    return { to: account.email, sent: true, message: `Test e-mail sent to ${account.email}` };
  } catch (error) {
    return { to: account.email, sent: false, message: `Test e-mail to ${account.email} not sent: ${error instanceof Error ? error.message : String(error)}` };
  }
}

builder.objectFields(AccountRef, (t) => ({
  alerts: t.field({
    type: [AlertRef],
    description: "The account's rate alerts, oldest first",
    resolve: (account, _args, ctx) => ctx.loaders.alertsOfAccount.load(account.id),
  }),
}));

builder.queryFields((t) => ({
  alerts: t.field({
    type: AlertListRef,
    description: "The viewer's rate alerts, oldest first, and the plan's limit",
    authScopes: { apiKey: true, session: true },
    resolve: async (_root, _args, ctx) => {
      const viewer = requireSubscriber(ctx, RATE_ALERTS.start);
      const alerts = await ctx.loaders.alertsOfAccount.load(viewer.accountId);
      return { alerts, limit: PLAN_LIMITS[viewer.plan].alerts, accountId: viewer.accountId };
    },
  }),
  pausableAlert: t.field({
    type: PausableAlertRef,
    description: "The alert an e-mail's pause link names (no sign-in: the link is signed)",
    args: { token: t.arg({ type: 'Text', required: true }) },
    resolve: async (_root, { token }, ctx) => {
      const id = ctx.services.alertLinks.alertOfPauseToken(token);
      if (id === null) throw new BadRequestError('This address is not a complete pause link. Copy the whole link from the e-mail.');
      const alert = await findPausableAlert(ctx.services.db, id);
      if (!alert) throw new NotFoundError('This alert no longer exists: it was deleted.');
      return alert;
    },
  }),
}));

builder.mutationFields((t) => ({
  createAlert: t.field({
    type: AlertRef,
    description: 'Creates a rate alert, checked at every publication from the next one on',
    args: { input: t.arg({ type: CreateInput, required: true }) },
    authScopes: { apiKey: true, session: true },
    resolve: async (_root, { input }, ctx) => {
      const viewer = requireActiveSubscriber(ctx, RATE_ALERTS.middle);
      // D11: the request's own faults (400) before the plan's (403).
      const fields = checkFields(input);
      checkAlertsAvailable(viewer.plan);
      if (fields.channels.includes('webhook')) checkAlertWebhooks(viewer.plan);
      return ctx.services.db.transaction().execute(async (trx) => {
        await lockAccount(trx, viewer.accountId); // two creations at once cannot both take the last place
        checkAlertLimit(viewer.plan, await countAlerts(trx, viewer.accountId));
        return insertAlert(trx, { id: randomBytes(16).toString('hex'), account_id: viewer.accountId, ...fields, created_at: ctx.services.clock() });
      });
    },
  }),
  deleteAlert: t.field({
    type: 'String',
    description: "Removes one of the viewer's alerts with its firings; returns its id",
    args: { id: t.arg({ type: 'Text', required: true }) },
    authScopes: { apiKey: true, session: true },
    resolve: async (_root, { id }, ctx) => {
      const viewer = requireActiveSubscriber(ctx, RATE_ALERTS.middle);
      if (!ALERT_ID.test(id) || !(await deleteAlert(ctx.services.db, viewer.accountId, id))) throw noSuchAlert(id);
      return id;
    },
  }),
  setAlertActive: t.field({
    type: AlertRef,
    description: 'Pauses (false) or resumes (true) an alert',
    args: { id: t.arg({ type: 'Text', required: true }), isActive: t.arg.boolean({ required: true }) },
    authScopes: { apiKey: true, session: true },
    resolve: async (_root, { id, isActive }, ctx) => {
      const viewer = requireActiveSubscriber(ctx, RATE_ALERTS.middle);
      if (isActive) checkAlertsAvailable(viewer.plan); // D11: plan (403) before data (404)
      const updated = ALERT_ID.test(id) ? await setAlertActive(ctx.services.db, viewer.accountId, id, isActive) : undefined;
      if (!updated) throw noSuchAlert(id);
      return updated;
    },
  }),
  testAlert: t.field({
    type: AlertTestRef,
    description: 'Sends a sample of the alert on each of its channels now, from the newest rates; it never counts as a firing',
    args: { id: t.arg({ type: 'Text', required: true }) },
    authScopes: { apiKey: true, session: true },
    resolve: async (_root, { id }, ctx) => {
      const viewer = requireActiveSubscriber(ctx, RATE_ALERTS.middle);
      checkAlertsAvailable(viewer.plan); // D11: plan (403) before data (404)
      const alert = await ownAlert(ctx, id);
      const firing = await sampleFiring(ctx, alert);
      const hooked = alert.channels.includes('webhook') && PLAN_LIMITS[viewer.plan].webhookSubscriptions > 0;
      const [email, webhooks] = await Promise.all([
        alert.channels.includes('email') ? testEmail(ctx, viewer.accountId, firing) : null,
        hooked ? testWebhooks(ctx, viewer.accountId, firing) : [],
      ]);
      return { email, webhooks };
    },
  }),
  pauseAlertByLink: t.field({
    type: PausableAlertRef,
    description: "Pauses the alert an e-mail's signed pause link names (no sign-in)",
    args: { token: t.arg({ type: 'Text', required: true }) },
    resolve: async (_root, { token }, ctx) => {
      const id = ctx.services.alertLinks.alertOfPauseToken(token);
      if (id === null) throw new BadRequestError('This address is not a complete pause link. Copy the whole link from the e-mail.');
      const alert = await pauseAlert(ctx.services.db, id);
      if (!alert) throw new NotFoundError('This alert no longer exists: it was deleted.');
      return alert;
    },
  }),
}));
