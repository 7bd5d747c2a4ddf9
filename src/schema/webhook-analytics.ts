// `webhookHealth`: deliveries of the publications of a range of rate days, overall and per
// subscription: attempts, outcomes, success rate, attempt latency p50/p95, consecutive failures,
// and which subscriptions are failing now. Read from the delivery and attempt rows the worker
// keeps (src/jobs/webhook-deliveries.ts), and over every subscription from their roll-ups, kept in
// step with them (src/db/webhooks.ts), so that a year is not read delivery by delivery.
import { resolveOffsetConnection } from '@pothos/plugin-relay';
import { sql, type RawBuilder } from 'kysely';
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

interface AttemptLatency {
  /** attempts recorded (webhook_attempts, kept 90 days) */
  latency_attempts: number;
  p50_ms: number | null;
  p95_ms: number | null;
}

interface SubscriptionHealthRow extends DeliveryCounts, AttemptLatency {
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

const Latency = builder.objectRef<AttemptLatency>('WebhookLatency').implement({
  description: 'How long the attempts took, from the request to the receiver’s answer or the failure (attempts are kept 90 days)',
  fields: (t) => ({
    attempts: t.int({ description: 'attempts recorded', resolve: (l) => l.latency_attempts }),
    p50Ms: t.float({ nullable: true, description: 'the median, in milliseconds; null without attempts', resolve: (l) => l.p50_ms }),
    p95Ms: t.float({ nullable: true, resolve: (l) => l.p95_ms }),
  }),
});

/** Latency of the recorded attempts of the range's publication deliveries; fixed SQL. */
const LATENCY = sql`
  count(*)::int AS latency_attempts,
  percentile_cont(0.5) WITHIN GROUP (ORDER BY w.duration_ms) AS p50_ms,
  percentile_cont(0.95) WITHIN GROUP (ORDER BY w.duration_ms) AS p95_ms`;
const publicationAttempts = (from: string, to: string) => sql`w.event = 'rates.published' AND w.rate_date BETWEEN ${from} AND ${to}`;

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
    latency: t.field({ type: Latency, resolve: (s) => s }),
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

/** COUNTS over every subscription, from the roll-up of deliveries per rate day and state. */
const overallCounts = (from: string, to: string) => sql<DeliveryCounts>`
  SELECT
    coalesce(sum(deliveries), 0)::int AS deliveries,
    coalesce(sum(deliveries) FILTER (WHERE state = 'delivered'), 0)::int AS delivered,
    coalesce(sum(deliveries) FILTER (WHERE state = 'failed'), 0)::int AS gave_up,
    coalesce(sum(deliveries) FILTER (WHERE state = 'abandoned'), 0)::int AS abandoned,
    coalesce(sum(deliveries) FILTER (WHERE state = 'pending'), 0)::int AS pending,
    coalesce(sum(attempts), 0)::int AS attempts
  FROM webhook_deliveries_daily WHERE rate_date BETWEEN ${from} AND ${to}`;

/**
 * LATENCY over every subscription, from the roll-up of publication attempts per rate day and
 * duration: the durations' counts in order give each attempt's rank, and each percentile is
 * percentile_cont's own arithmetic on the values at the ranks either side of p × (attempts - 1),
 * so the same float.
 */
function overallLatency(from: string, to: string) {
  const valueAt = (rank: RawBuilder<number>) => sql<number>`(SELECT min(duration_ms) FROM ranked WHERE through > ${rank})::float8`;
  const percentile = (p: number) => {
    const at = sql<number>`${p}::float8 * (n - 1)`;
    const below = valueAt(sql`floor(${at})`);
    return sql<number>`CASE WHEN n > 0 THEN ${below} + (${at} - floor(${at})) * (${valueAt(sql`ceil(${at})`)} - ${below}) END`;
  };
  return sql<AttemptLatency>`
    WITH ranked AS (
      SELECT duration_ms, sum(attempts) OVER (ORDER BY duration_ms) AS through
      FROM (SELECT duration_ms, sum(attempts) AS attempts FROM webhook_attempt_durations WHERE rate_date BETWEEN ${from} AND ${to} GROUP BY duration_ms) d
    ),
    total AS (SELECT coalesce(max(through), 0)::int8 AS n FROM ranked)
    SELECT n::int AS latency_attempts, ${percentile(0.5)} AS p50_ms, ${percentile(0.95)} AS p95_ms FROM total`;
}

const WebhookHealth = builder.objectRef<WebhookHealthArgs>('WebhookHealth').implement({
  authScopes: { operator: true },
  fields: (t) => ({
    overall: t.field({
      type: DeliveryCountsRef,
      resolve: (args, _a, ctx) =>
        analyticsRead(ctx, async (db) => {
          const { rows } = await overallCounts(args.from, args.to).execute(db);
          return rows[0]!;
        }),
    }),
    latency: t.field({
      type: Latency,
      description: 'over every subscription',
      resolve: (args, _a, ctx) =>
        analyticsRead(ctx, async (db) => {
          const { rows } = await overallLatency(args.from, args.to).execute(db);
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
            // the page of subscriptions first (its order needs no counts), then each one's
            // deliveries and attempts through their indexes, rather than counting every subscription's
            const { rows } = await sql<SubscriptionHealthRow>`
              WITH page AS (
                SELECT s.id, s.url, a.email AS account_email, s.is_active, s.failure_count, s.last_success_at
                FROM webhook_subscriptions s
                JOIN accounts a ON a.id = s.account_id
                WHERE ${args.failingOnly ? sql`s.is_active AND s.failure_count > 0` : sql`true`}
                ORDER BY s.failure_count DESC, s.id
                LIMIT ${limit} OFFSET ${offset}
              )
              SELECT page.*, c.*, l.* FROM page
              CROSS JOIN LATERAL (
                SELECT ${COUNTS} FROM webhook_deliveries d
                WHERE d.subscription_id = page.id AND d.event = 'rates.published' AND d.rate_date BETWEEN ${args.from} AND ${args.to}) c
              CROSS JOIN LATERAL (SELECT ${LATENCY} FROM webhook_attempts w WHERE w.subscription_id = page.id AND ${publicationAttempts(args.from, args.to)}) l
              ORDER BY page.failure_count DESC, page.id`.execute(db);
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
