// `webhookHealth`: deliveries of the publications of a range of rate days, overall and per
// subscription: attempts, outcomes, success rate, attempt latency p50/p95, consecutive failures,
// and which subscriptions are failing now. Read from the delivery and attempt rows the worker
// keeps (src/jobs/webhook-deliveries.ts) and their roll-ups (src/db/analytics/webhook-health.ts).
import { resolveOffsetConnection } from '@pothos/plugin-relay';
import {
  deactivatedSubscriptions,
  subscriptionHealth,
  webhookDeliveryCounts,
  webhookLatency,
  type AttemptLatency,
  type DeliveryCounts,
  type SubscriptionHealthRow,
} from '../db/analytics/webhook-health.js';
import { analyticsRead, checkPage, checkRange, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './analytics-support.js';
import { builder } from './builder.js';
import { WebhookSubscriptionRef } from './webhook-subscription.js';

/** the consecutive failures at which a subscription turns inactive (D28 in docs/decisions.md) */
const DEACTIVATE_AFTER_FAILURES = 10;

interface WebhookHealthArgs {
  from: string;
  to: string;
  failingOnly: boolean;
}

const DeliveryCountsRef = builder.objectRef<DeliveryCounts>('WebhookDeliveryCounts').implement({
  fields: (t) => ({
    deliveries: t.int({ description: 'publication deliveries recorded', resolve: (c) => c.deliveries }),
    delivered: t.int({ resolve: (c) => c.delivered }),
    gaveUp: t.int({ description: 'deliveries given up after the sixth failed attempt', resolve: (c) => c.gave_up }),
    abandoned: t.int({ description: 'deliveries dropped because the subscription turned inactive', resolve: (c) => c.abandoned }),
    pending: t.int({ description: 'deliveries still to be attempted (again)', resolve: (c) => c.pending }),
    attempts: t.int({ resolve: (c) => c.attempts }),
    successRate: t.float({
      nullable: true,
      description: 'delivered / (delivered + given up + abandoned); null before any delivery has finished',
      resolve: (c) => {
        const finished = c.delivered + c.gave_up + c.abandoned;
        return finished === 0 ? null : c.delivered / finished;
      },
    }),
  }),
});

const Latency = builder.objectRef<AttemptLatency>('WebhookLatency').implement({
  description: 'How long the attempts took, from the request to the receiver’s answer or the failure (attempts are kept 30 days)',
  fields: (t) => ({
    attempts: t.int({ description: 'attempts recorded', resolve: (l) => l.latency_attempts }),
    p50Ms: t.float({ nullable: true, description: 'the median, in milliseconds; null without attempts', resolve: (l) => l.p50_ms }),
    p95Ms: t.float({ nullable: true, resolve: (l) => l.p95_ms }),
  }),
});

const SubscriptionHealth = builder.objectRef<SubscriptionHealthRow>('WebhookSubscriptionHealth').implement({
  fields: (t) => ({
    id: t.string({ resolve: (s) => s.id }),
    url: t.string({ resolve: (s) => s.url }),
    subscription: t.field({
      type: WebhookSubscriptionRef,
      nullable: true,
      description: 'the subscription itself; null when it was deleted since',
      resolve: (s, _args, ctx) => ctx.loaders.subscription.load(s.id),
    }),
    accountEmail: t.string({ resolve: (s) => s.account_email }),
    isActive: t.boolean({ resolve: (s) => s.is_active }),
    consecutiveFailures: t.int({ resolve: (s) => s.failure_count }),
    lastSuccessAt: t.field({ type: 'DateTime', nullable: true, resolve: (s) => s.last_success_at }),
    deactivated: t.boolean({ description: `inactive after ${DEACTIVATE_AFTER_FAILURES} consecutive failures`, resolve: (s) => deactivated(s) }),
    failingNow: t.boolean({ description: 'active, and its latest attempt failed', resolve: (s) => s.is_active && s.failure_count > 0 }),
    counts: t.field({ type: DeliveryCountsRef, resolve: (s) => s }),
    latency: t.field({ type: Latency, resolve: (s) => s }),
  }),
});

const deactivated = (s: { is_active: boolean; failure_count: number }) => !s.is_active && s.failure_count >= DEACTIVATE_AFTER_FAILURES;

const WebhookHealth = builder.objectRef<WebhookHealthArgs>('WebhookHealth').implement({
  authScopes: { operator: true },
  fields: (t) => ({
    overall: t.field({
      type: DeliveryCountsRef,
      resolve: (args, _a, ctx) => analyticsRead(ctx, (db) => webhookDeliveryCounts(db, args.from, args.to)),
    }),
    latency: t.field({
      type: Latency,
      description: 'over every subscription',
      resolve: (args, _a, ctx) => analyticsRead(ctx, (db) => webhookLatency(db, args.from, args.to)),
    }),
    deactivatedSubscriptions: t.int({
      description: 'subscriptions inactive after consecutive failures, now',
      resolve: (_args, _a, ctx) => analyticsRead(ctx, (db) => deactivatedSubscriptions(db, DEACTIVATE_AFTER_FAILURES)),
    }),
    subscriptions: t.connection({
      type: SubscriptionHealth,
      description: 'per subscription, the most consecutive failures first',
      resolve: (args, page, ctx) => {
        checkPage(page);
        return resolveOffsetConnection({ args: page, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE }, ({ offset, limit }) =>
          analyticsRead(ctx, (db) => subscriptionHealth(db, args, offset, limit)),
        );
      },
    }),
  }),
});

builder.queryFields((t) => ({
  webhookHealth: t.field({
    type: WebhookHealth,
    description: 'Webhook deliveries of the publications of an inclusive range of rate days (operator only)',
    args: {
      from: t.arg({ type: 'LocalDate', required: true }),
      to: t.arg({ type: 'LocalDate', required: true }),
      failingOnly: t.arg.boolean({ required: true, defaultValue: false, description: 'only the active subscriptions whose latest attempt failed' }),
    },
    authScopes: { operator: true },
    resolve: (_root, args) => {
      checkRange(args.from, args.to);
      return args;
    },
  }),
}));
