// Webhook subscriptions (docs/api.md §2.11, §4.2; D26–D28 in docs/decisions.md): the viewer's own,
// created, listed, removed, re-activated and tested here; deliveries themselves are
// src/jobs/webhook-deliveries.ts's.
import { randomBytes, randomUUID } from 'node:crypto';
import { lockAccount } from '../db/accounts.js';
import type { WebhookSubscription } from '../db/database.js';
import { countSubscriptions, deleteSubscription, findSubscription, insertSubscription, setSubscriptionActive } from '../db/webhook-subscriptions.js';
import { insertAttempts } from '../db/webhook-rollups.js';
import { type RecentAttempt } from '../db/delivery-log.js';
import { CURRENCY_CODES } from '../domain/currencies.js';
import { PLAN_LIMITS, type Plan } from '../domain/plans.js';
import { AccountSuspendedError, BadRequestError, InvalidApiKeyError, NotFoundError, ServiceUnavailableError } from '../errors.js';
import { deliveryPayload } from '../webhooks/payload.js';
import { generateSigningSecret } from '../webhooks/secret-box.js';
import { RESPONSE_BODY_KEPT_BYTES } from '../webhooks/send.js';
import { signedDelivery } from '../webhooks/sign.js';
import { parseWebhookUrl, resolveWebhookTarget } from '../webhooks/target.js';
import { AccountRef } from './account.js';
import { builder } from './builder.js';
import type { Context } from './context.js';
import { CurrencyCodeEnum } from './currency.js';
import { RECENT_ATTEMPTS } from './loaders.js';
import { checkSubscriptionLimit, checkWebhooksAvailable } from './plan-rules.js';

/** What "every currency" means today: all served codes but the base (D26). */
const ALL_CODES = CURRENCY_CODES.filter((code) => code !== 'AUD');
const MAX_DESCRIPTION = 200;
const SUBSCRIPTION_ID = /^[0-9a-f]{32}$/;

/** The account whose subscriptions (or alerts) these are. */
export interface Subscriber {
  accountId: string;
  plan: Plan;
}

/** The key's account, or the signed-in dashboard session's (docs/api.md §4.2); `what` names the resources. */
export function requireSubscriber(ctx: Context, what = 'Webhook subscriptions'): Subscriber {
  const { viewer } = ctx;
  if (viewer.kind === 'apiKey') return viewer;
  if (viewer.kind === 'session') return { accountId: viewer.account.id, plan: viewer.account.plan };
  throw new InvalidApiKeyError(`${what} belong to an account: an API key or a dashboard session is needed`);
}

/**
 * A subscriber that may change its subscriptions (or alerts). A suspended account's keys are
 * refused before any operation; its dashboard session may still look, but not change anything.
 */
export function requireActiveSubscriber(ctx: Context, what = 'webhook subscriptions'): Subscriber {
  const subscriber = requireSubscriber(ctx, what);
  if (ctx.viewer.kind === 'session' && ctx.viewer.account.status === 'suspended') {
    throw new AccountSuspendedError(`This account is suspended: its ${what} cannot be created or changed until it is reinstated`);
  }
  return subscriber;
}

const noSuchSubscription = (id: string) => new NotFoundError(`No webhook subscription ${id}`);

/** The viewer's subscription; another account's and an unknown id look the same (404). */
export async function ownSubscription(ctx: Context, id: string): Promise<WebhookSubscription> {
  const viewer = requireSubscriber(ctx);
  const subscription = SUBSCRIPTION_ID.test(id) ? await findSubscription(ctx.services.db, viewer.accountId, id) : undefined;
  if (!subscription) throw noSuchSubscription(id);
  return subscription;
}

const WebhookEventEnum = builder.enumType('WebhookEvent', {
  values: { RATES_PUBLISHED: { value: 'rates.published' }, RATES_TEST: { value: 'rates.test' }, RATES_ALERT: { value: 'rates.alert' } },
});

const WebhookAttemptRef = builder.objectRef<RecentAttempt>('WebhookAttempt').implement({
  description: 'One attempt to deliver an event to a subscription (D28 in docs/decisions.md)',
  fields: (t) => ({
    deliveryId: t.exposeString('deliveryId', { description: 'The X-ExchangeRates-Delivery id, the same on every retry' }),
    event: t.expose('event', { type: WebhookEventEnum }),
    rateDate: t.expose('rateDate', { type: 'LocalDate' }),
    attempt: t.exposeInt('attempt', { description: '1 for the first attempt' }),
    attemptedAt: t.expose('attemptedAt', { type: 'DateTime' }),
    durationMs: t.exposeInt('durationMs'),
    httpStatus: t.exposeInt('httpStatus', { nullable: true, description: "The receiver's status; null when it gave none" }),
    error: t.exposeString('error', { nullable: true }),
    delivered: t.boolean({ resolve: (a) => a.outcome === 'delivered' }),
    nextAttemptAt: t.expose('nextAttemptAt', { type: 'DateTime', nullable: true, description: 'When the delivery is tried again, if it will be' }),
    requestBody: t.exposeString('requestBody', { nullable: true, description: 'The body sent; null once a delivery has been pruned' }),
    responseBody: t.exposeString('responseBody', {
      nullable: true,
      description: `The first ${RESPONSE_BODY_KEPT_BYTES} bytes of the receiver's answer, as UTF-8 text; null when it gave none`,
    }),
  }),
});

export const WebhookSubscriptionRef = builder.objectRef<WebhookSubscription>('WebhookSubscription').implement({
  description: 'Where new publications are pushed. The signing secret is never part of it.',
  fields: (t) => ({
    id: t.exposeString('id'),
    url: t.exposeString('url'),
    currencies: t.field({
      type: [CurrencyCodeEnum],
      description: 'The codes delivered; a subscription to every code lists all current codes',
      resolve: (s) => (s.currencies ?? ALL_CODES) as (typeof CURRENCY_CODES)[number][],
    }),
    description: t.exposeString('description', { nullable: true }),
    isActive: t.exposeBoolean('is_active'),
    failureCount: t.exposeInt('failure_count', { description: 'Consecutive failed delivery attempts' }),
    lastSuccessAt: t.expose('last_success_at', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('created_at', { type: 'DateTime' }),
    recentDeliveries: t.field({
      type: [WebhookAttemptRef],
      description: `The latest ${RECENT_ATTEMPTS} delivery attempts, test deliveries included, newest first`,
      resolve: (s, _args, ctx) => ctx.loaders.recentAttempts.load(s.id),
    }),
  }),
});

interface CreatedSubscription {
  signingSecret: string;
  subscription: WebhookSubscription;
}

const CreatedSubscriptionRef = builder.objectRef<CreatedSubscription>('CreatedWebhookSubscription').implement({
  fields: (t) => ({
    signingSecret: t.exposeString('signingSecret', { description: 'Shown this once; stored only encrypted' }),
    subscription: t.field({ type: WebhookSubscriptionRef, resolve: (c) => c.subscription }),
  }),
});

const SubscriptionListRef = builder.objectRef<{ subscriptions: WebhookSubscription[]; limit: number }>('WebhookSubscriptionList').implement({
  fields: (t) => ({
    subscriptions: t.field({ type: [WebhookSubscriptionRef], resolve: (l) => l.subscriptions }),
    limit: t.exposeInt('limit', { description: "The plan's maximum number of subscriptions" }),
  }),
});

interface TestDelivery {
  delivered: boolean;
  responseStatus: number;
  message: string;
}

const TestDeliveryRef = builder.objectRef<TestDelivery>('WebhookTestDelivery').implement({
  fields: (t) => ({
    delivered: t.exposeBoolean('delivered', { description: 'The receiver answered 2xx in time' }),
    responseStatus: t.exposeInt('responseStatus', { description: "The receiver's HTTP status; 0 when it gave none" }),
    message: t.exposeString('message'),
  }),
});

const CreateInput = builder.inputType('CreateWebhookSubscriptionInput', {
  fields: (t) => ({
    url: t.field({ type: 'Text', required: true }),
    currencies: t.field({ type: [CurrencyCodeEnum], description: 'Left out: every code, now and later' }),
    description: t.field({ type: 'Text' }),
  }),
});

function checkCurrencies(currencies: readonly string[] | null | undefined): string[] | null {
  if (currencies === null || currencies === undefined) return null;
  if (currencies.length === 0) throw new BadRequestError('currencies must not be empty; leave it out to receive every currency');
  if (currencies.includes('AUD')) throw new BadRequestError('currencies: AUD is the base currency and has no rate of its own');
  const seen = new Set<string>();
  for (const code of currencies) {
    if (seen.has(code)) throw new BadRequestError(`currencies: ${code} appears twice`);
    seen.add(code);
  }
  return [...currencies];
}

builder.objectFields(AccountRef, (t) => ({
  webhookSubscriptions: t.field({
    type: [WebhookSubscriptionRef],
    description: "The account's webhook subscriptions, oldest first",
    resolve: (account, _args, ctx) => ctx.loaders.subscriptionsOfAccount.load(account.id),
  }),
}));

builder.queryField('webhookSubscriptions', (t) =>
  t.field({
    type: SubscriptionListRef,
    description: "The viewer's subscriptions, oldest first, and the plan's limit",
    authScopes: { apiKey: true, session: true },
    resolve: async (_root, _args, ctx) => {
      const viewer = requireSubscriber(ctx);
      return {
        subscriptions: await ctx.loaders.subscriptionsOfAccount.load(viewer.accountId),
        limit: PLAN_LIMITS[viewer.plan].webhookSubscriptions,
      };
    },
  }),
);

builder.mutationFields((t) => ({
  createWebhookSubscription: t.field({
    type: CreatedSubscriptionRef,
    description: 'Subscribes an HTTPS URL on a public host to new publications (D26)',
    args: { input: t.arg({ type: CreateInput, required: true }) },
    authScopes: { apiKey: true, session: true },
    resolve: async (_root, { input }, ctx) => {
      const viewer = requireActiveSubscriber(ctx);
      const { webhooks, db } = ctx.services;
      // D11: the request's own faults (400) before the plan's (403).
      const url = parseWebhookUrl(input.url, webhooks.policy.allowPrivate);
      const currencies = checkCurrencies(input.currencies);
      const description = input.description ?? null;
      if (description !== null && [...description].length > MAX_DESCRIPTION) {
        throw new BadRequestError(`description must be at most ${MAX_DESCRIPTION} characters`);
      }
      // Resolving is part of checking the url (D26), so it comes before the plan too.
      await resolveWebhookTarget(url, webhooks.policy);
      checkWebhooksAvailable(viewer.plan);
      const signingSecret = generateSigningSecret();
      const subscription = await db.transaction().execute(async (trx) => {
        await lockAccount(trx, viewer.accountId); // two creations at once cannot both take the last place
        checkSubscriptionLimit(viewer.plan, await countSubscriptions(trx, viewer.accountId));
        return insertSubscription(trx, {
          id: randomBytes(16).toString('hex'),
          account_id: viewer.accountId,
          url: url.href,
          currencies,
          description,
          secret_ciphertext: webhooks.box.seal(signingSecret),
        });
      });
      return { signingSecret, subscription };
    },
  }),
  deleteWebhookSubscription: t.field({
    type: 'String',
    description: "Removes one of the viewer's subscriptions and its pending deliveries; returns its id",
    args: { id: t.arg({ type: 'Text', required: true }) },
    authScopes: { apiKey: true, session: true },
    resolve: async (_root, { id }, ctx) => {
      const viewer = requireActiveSubscriber(ctx);
      // One statement, limited to the viewer's own: another account's id is simply not found.
      if (!SUBSCRIPTION_ID.test(id) || !(await deleteSubscription(ctx.services.db, viewer.accountId, id))) throw noSuchSubscription(id);
      return id;
    },
  }),
  setWebhookSubscriptionActive: t.field({
    type: WebhookSubscriptionRef,
    description: 'Re-activates a subscription, resetting its failure count (D28), or deactivates it',
    args: { id: t.arg({ type: 'Text', required: true }), isActive: t.arg.boolean({ required: true }) },
    authScopes: { apiKey: true, session: true },
    resolve: async (_root, { id, isActive }, ctx) => {
      const viewer = requireActiveSubscriber(ctx);
      if (isActive) checkWebhooksAvailable(viewer.plan); // D11: plan (403) before data (404)
      const updated = SUBSCRIPTION_ID.test(id) ? await setSubscriptionActive(ctx.services.db, viewer.accountId, id, isActive) : undefined;
      if (!updated) throw noSuchSubscription(id);
      return updated;
    },
  }),
  testWebhookSubscription: t.field({
    type: TestDeliveryRef,
    description: 'Sends one signed rates.test delivery with the latest rates now; changes no counters (D28)',
    args: { id: t.arg({ type: 'Text', required: true }) },
    authScopes: { apiKey: true, session: true },
    resolve: async (_root, { id }, ctx) => {
      checkWebhooksAvailable(requireActiveSubscriber(ctx).plan); // D11: plan (403) before data (404)
      const subscription = await ownSubscription(ctx, id);
      const history = await ctx.rates.history();
      const day = history.newestDate === null ? null : history.day(history.newestDate);
      if (!day) throw new ServiceUnavailableError('No rates have been published to this service yet, so there is nothing to test with');
      const { webhooks } = ctx.services;
      const deliveryId = randomUUID();
      const payload = deliveryPayload('rates.test', deliveryId, day, subscription.currencies);
      const secret = webhooks.box.open(subscription.secret_ciphertext);
      const started = performance.now();
      const result = await webhooks.send(signedDelivery(subscription.url, 'rates.test', deliveryId, payload, secret));
      await insertAttempts(ctx.services.db, [
        {
          delivery_id: deliveryId,
          subscription_id: subscription.id,
          event: 'rates.test',
          rate_date: day.date,
          attempt: 1,
          attempted_at: ctx.services.clock(),
          duration_ms: Math.round(performance.now() - started),
          http_status: result.status,
          error: result.error,
          outcome: result.ok ? 'delivered' : 'failed',
          request_body: payload,
          response_body: result.responseBody,
        },
      ]);
      return {
        delivered: result.ok,
        responseStatus: result.status ?? 0,
        message: result.ok
          ? `Test delivery ${deliveryId} acknowledged with ${result.status}`
          : `Test delivery ${deliveryId} failed: ${result.error ?? `the receiver answered ${result.status}`}`,
      };
    },
  }),
}));
