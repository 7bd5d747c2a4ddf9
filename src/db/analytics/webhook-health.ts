// Webhook deliveries of the publications of a range of rate days: the counts and attempt latency
// over every subscription, read from their roll-ups (kept in step with the deliveries and attempts
// by src/db/webhook-rollups.ts) so that a year is not read delivery by delivery, and a page of
// subscriptions with their own, read from their deliveries and attempts.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../database.js';

export interface DeliveryCounts {
  deliveries: number;
  delivered: number;
  gave_up: number;
  abandoned: number;
  pending: number;
  attempts: number;
}

export interface AttemptLatency {
  /** attempts recorded (webhook_attempts, kept 30 days) */
  latency_attempts: number;
  p50_ms: number | null;
  p95_ms: number | null;
}

export interface SubscriptionHealthRow extends DeliveryCounts, AttemptLatency {
  id: string;
  url: string;
  account_email: string;
  is_active: boolean;
  failure_count: number;
  last_success_at: Date | null;
}

/** The deliveries of every subscription of an inclusive range of rate days, from the roll-up per rate day and state. */
export async function webhookDeliveryCounts(db: Kysely<Database>, from: string, to: string): Promise<DeliveryCounts> {
  const { rows } = await sql<DeliveryCounts>`
    SELECT
      coalesce(sum(deliveries), 0)::int AS deliveries,
      coalesce(sum(deliveries) FILTER (WHERE state = 'delivered'), 0)::int AS delivered,
      coalesce(sum(deliveries) FILTER (WHERE state = 'failed'), 0)::int AS gave_up,
      coalesce(sum(deliveries) FILTER (WHERE state = 'abandoned'), 0)::int AS abandoned,
      coalesce(sum(deliveries) FILTER (WHERE state = 'pending'), 0)::int AS pending,
      coalesce(sum(attempts), 0)::int AS attempts
    FROM webhook_deliveries_daily WHERE rate_date BETWEEN ${from} AND ${to}`.execute(db);
  return rows[0]!;
}

/**
 * The latency of every subscription's publication attempts of an inclusive range of rate days,
 * from the roll-up per rate day and duration: the durations' counts in order give each attempt's
 * rank, and each percentile is percentile_cont's own arithmetic on the values at the ranks either
 * side of p × (attempts - 1), so the same float as over the attempts themselves.
 */
export async function webhookLatency(db: Kysely<Database>, from: string, to: string): Promise<AttemptLatency> {
  const valueAt = (rank: RawBuilder<number>) => sql<number>`(SELECT min(duration_ms) FROM ranked WHERE through > ${rank})::float8`;
  const percentile = (p: number) => {
    const at = sql<number>`${p}::float8 * (n - 1)`;
    const below = valueAt(sql`floor(${at})`);
    return sql<number>`CASE WHEN n > 0 THEN ${below} + (${at} - floor(${at})) * (${valueAt(sql`ceil(${at})`)} - ${below}) END`;
  };
  const { rows } = await sql<AttemptLatency>`
    WITH ranked AS (
      SELECT duration_ms, sum(attempts) OVER (ORDER BY duration_ms) AS through
      FROM (SELECT duration_ms, sum(attempts) AS attempts FROM webhook_attempt_durations WHERE rate_date BETWEEN ${from} AND ${to} GROUP BY duration_ms) d
    ),
    total AS (SELECT coalesce(max(through), 0)::int8 AS n FROM ranked)
    SELECT n::int AS latency_attempts, ${percentile(0.5)} AS p50_ms, ${percentile(0.95)} AS p95_ms FROM total`.execute(db);
  return rows[0]!;
}

/** The subscriptions inactive after at least `failures` consecutive failures, now. */
export async function deactivatedSubscriptions(db: Kysely<Database>, failures: number): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM webhook_subscriptions WHERE NOT is_active AND failure_count >= ${failures}`.execute(db);
  return rows[0]!.n;
}

/**
 * A page of subscriptions, the most consecutive failures first (only the active ones whose latest
 * attempt failed with `failingOnly`), each with the counts and latency of its publication
 * deliveries of an inclusive range of rate days.
 */
export async function subscriptionHealth(
  db: Kysely<Database>,
  { from, to, failingOnly }: { from: string; to: string; failingOnly: boolean },
  offset: number,
  limit: number,
): Promise<SubscriptionHealthRow[]> {
  // the page of subscriptions first (its order needs no counts), then each one's deliveries and
  // attempts through their indexes, rather than counting every subscription's
  const { rows } = await sql<SubscriptionHealthRow>`
    WITH page AS (
      SELECT s.id, s.url, a.email AS account_email, s.is_active, s.failure_count, s.last_success_at
      FROM webhook_subscriptions s
      JOIN accounts a ON a.id = s.account_id
      WHERE ${failingOnly ? sql`s.is_active AND s.failure_count > 0` : sql`true`}
      ORDER BY s.failure_count DESC, s.id
      LIMIT ${limit} OFFSET ${offset}
    )
    SELECT page.*, c.*, l.* FROM page
    CROSS JOIN LATERAL (
      SELECT
        count(d.id)::int AS deliveries,
        (count(*) FILTER (WHERE d.state = 'delivered'))::int AS delivered,
        (count(*) FILTER (WHERE d.state = 'failed'))::int AS gave_up,
        (count(*) FILTER (WHERE d.state = 'abandoned'))::int AS abandoned,
        (count(*) FILTER (WHERE d.state = 'pending'))::int AS pending,
        coalesce(sum(d.attempts), 0)::int AS attempts
      FROM webhook_deliveries d
      WHERE d.subscription_id = page.id AND d.event = 'rates.published' AND d.rate_date BETWEEN ${from} AND ${to}) c
    CROSS JOIN LATERAL (
      SELECT
        count(*)::int AS latency_attempts,
        percentile_cont(0.5) WITHIN GROUP (ORDER BY w.duration_ms) AS p50_ms,
        percentile_cont(0.95) WITHIN GROUP (ORDER BY w.duration_ms) AS p95_ms
      FROM webhook_attempts w
      WHERE w.subscription_id = page.id AND w.event = 'rates.published' AND w.rate_date BETWEEN ${from} AND ${to}) l
    ORDER BY page.failure_count DESC, page.id`.execute(db);
  return rows;
}
