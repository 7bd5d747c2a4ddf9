// `webhookHealth`: deliveries of the publications of a range of rate days, overall and per
// subscription: attempts, outcomes, success rate, consecutive failures, and which subscriptions
// are failing now. Read from the delivery rows the worker keeps (src/jobs/webhook-deliveries.ts).
import { resolveOffsetConnection } from '@pothos/plugin-relay';
import { sql } from 'kysely';
import { analyticsRead, checkPage, checkRange, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './analytics-support.js';
import { builder } from './builder.js';

/** the consecutive failures at which a subscription turns inactive (D28 in docs/decisions.md) */
const DEACTIVATE_AFTER_FAILURES = 10;

interface DeliveryCounts {
  deliveries: number;
  delivered: number;
  gave_up: number;
  abandoned: number;
  pending: number;
  attempts: number;
}

interface SubscriptionHealthRow extends DeliveryCounts {
  id: string;
  url: string;
  account_email: string;
  is_active: boolean;
  failure_count: number;
  last_success_at: Date | null;
}

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

const SubscriptionHealth = builder.objectRef<SubscriptionHealthRow>('WebhookSubscriptionHealth').implement({
  fields: (t) => ({
    id: t.string({ resolve: (s) => s.id }),
    url: t.string({ resolve: (s) => s.url }),
    accountEmail: t.string({ resolve: (s) => s.account_email }),
    isActive: t.boolean({ resolve: (s) => s.is_active }),
    consecutiveFailures: t.int({ resolve: (s) => s.failure_count }),
    lastSuccessAt: t.field({ type: 'DateTime', nullable: true, resolve: (s) => s.last_success_at }),
    deactivated: t.boolean({ description: `inactive after ${DEACTIVATE_AFTER_FAILURES} consecutive failures`, resolve: (s) => deactivated(s) }),
    failingNow: t.boolean({ description: 'active, and its latest attempt failed', resolve: (s) => s.is_active && s.failure_count > 0 }),
    counts: t.field({ type: DeliveryCountsRef, resolve: (s) => s }),
  }),
});

const deactivated = (s: { is_active: boolean; failure_count: number }) => !s.is_active && s.failure_count >= DEACTIVATE_AFTER_FAILURES;

/** Counts of the range's publication deliveries, per subscription; fixed SQL, bound values. */
const COUNTS = sql`
  count(d.id)::int AS deliveries,
  (count(*) FILTER (WHERE d.state = 'delivered'))::int AS delivered,
  (count(*) FILTER (WHERE d.state = 'failed'))::int AS gave_up,
  (count(*) FILTER (WHERE d.state = 'abandoned'))::int AS abandoned,
  (count(*) FILTER (WHERE d.state = 'pending'))::int AS pending,
  coalesce(sum(d.attempts), 0)::int AS attempts`;

const WebhookHealth = builder.objectRef<WebhookHealthArgs>('WebhookHealth').implement({
  authScopes: { operator: true },
  fields: (t) => ({
    overall: t.field({
      type: DeliveryCountsRef,
      resolve: (args, _a, ctx) =>
        analyticsRead(ctx, async (db) => {
          const { rows } = await sql<DeliveryCounts>`
            SELECT ${COUNTS} FROM webhook_deliveries d
            WHERE d.event = 'rates.published' AND d.rate_date BETWEEN ${args.from} AND ${args.to}`.execute(db);
          return rows[0]!;
        }),
    }),
    deactivatedSubscriptions: t.int({
      description: 'subscriptions inactive after consecutive failures, now',
      resolve: (_args, _a, ctx) =>
        analyticsRead(ctx, async (db) => {
          const { rows } = await sql<{ n: number }>`
            SELECT count(*)::int AS n FROM webhook_subscriptions WHERE NOT is_active AND failure_count >= ${DEACTIVATE_AFTER_FAILURES}`.execute(db);
          return rows[0]!.n;
        }),
    }),
    subscriptions: t.connection({
      type: SubscriptionHealth,
      description: 'per subscription, the most consecutive failures first',
      resolve: (args, page, ctx) => {
        checkPage(page);
        return resolveOffsetConnection({ args: page, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE }, ({ offset, limit }) =>
          analyticsRead(ctx, async (db) => {
            const { rows } = await sql<SubscriptionHealthRow>`
              SELECT s.id, s.url, a.email AS account_email, s.is_active, s.failure_count, s.last_success_at, ${COUNTS}
              FROM webhook_subscriptions s
              JOIN accounts a ON a.id = s.account_id
              LEFT JOIN webhook_deliveries d ON d.subscription_id = s.id AND d.event = 'rates.published' AND d.rate_date BETWEEN ${args.from} AND ${args.to}
              WHERE ${args.failingOnly ? sql`s.is_active AND s.failure_count > 0` : sql`true`}
              GROUP BY s.id, a.email
              ORDER BY s.failure_count DESC, s.id
              LIMIT ${limit} OFFSET ${offset}`.execute(db);
            return rows;
          }),
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
