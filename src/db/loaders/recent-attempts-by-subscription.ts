import { sql, type Kysely } from 'kysely';
import type { Database } from '../database.js';
import type { RecentAttempt } from '../delivery-log.js';

/**
 * The latest `limit` attempts of each of these subscriptions, each subscription's newest first,
 * each with its delivery's next retry when one is due. Each subscription's attempts are read from
 * its own end of the index, as for one subscription alone. A publication's attempt sent its
 * delivery's payload; a test's attempt keeps its own.
 */
export async function recentAttemptsBySubscription(
  db: Kysely<Database>,
  subscriptionIds: readonly string[],
  limit: number,
): Promise<(RecentAttempt & { subscriptionId: string })[]> {
  const { rows } = await sql<RecentAttempt & { subscriptionId: string }>`
    select s.id as "subscriptionId", a."deliveryId", a.event, a."rateDate", a.attempt, a."attemptedAt", a."durationMs",
      a."httpStatus", a.error, a.outcome, a."nextAttemptAt", a."requestBody", a."responseBody"
    from unnest(${subscriptionIds}::text[]) as s(id)
    cross join lateral (
      select a.id, a.delivery_id as "deliveryId", a.event, a.rate_date as "rateDate", a.attempt, a.attempted_at as "attemptedAt",
        a.duration_ms as "durationMs", a.http_status as "httpStatus", a.error, a.outcome, d.next_attempt_at as "nextAttemptAt",
        coalesce(a.request_body, p.payload) as "requestBody", a.response_body as "responseBody"
      from webhook_attempts a
      left join webhook_deliveries d on d.id = a.delivery_id and d.state = 'pending' and d.attempts = a.attempt
      left join webhook_deliveries p on p.id = a.delivery_id
      where a.subscription_id = s.id
      order by a.attempted_at desc, a.id desc
      limit ${limit}
    ) a
    order by s.id, a."attemptedAt" desc, a.id desc`.execute(db);
  return rows;
}
