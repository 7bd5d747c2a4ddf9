// The monthly quota of keyed requests (D16, D17). Each request needs one unit granted by the
// account row in the database, which keeps the count exact across processes. To stay fast, the
// requests of one account that arrive while a grant is in flight wait and share the next grant:
// one statement per account per round trip, however many requests are queued.
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { grantUnits } from '../db/quota.js';
import { LIFETIME_PERIOD, billingPeriod } from '../domain/billing.js';
import { PLAN_LIMITS } from '../domain/plans.js';
import { RateLimitExceededError } from '../errors.js';
import type { Viewer } from '../schema/context.js';

interface Waiter {
  resolve(usedAfter: number | null): void;
  reject(error: unknown): void;
}

interface Queue {
  accountId: string;
  period: string;
  limit: number;
  waiters: Waiter[];
}

export class MonthlyQuota {
  private readonly queued = new Map<string, Queue>();
  private readonly inFlight = new Set<string>();

  constructor(private readonly db: Kysely<Database>, private readonly clock: () => Date) {}

  /** One unit for this request, or a 429 `rate_limit_exceeded`; returns the quota headers. */
  async take(viewer: Viewer): Promise<Record<string, string>> {
    const plan = PLAN_LIMITS[viewer.plan];
    const now = this.clock();
    const period = plan.resets ? billingPeriod(viewer.billingDay, now) : null;
    const periodStart = period?.start ?? LIFETIME_PERIOD;
    const limit = plan.monthlyRequests;
    const headers: Record<string, string> = { 'X-RateLimit-Limit-Monthly': String(limit) };
    if (period) headers['X-RateLimit-Reset'] = period.resetsAt.toISOString();

    const usedAfter = await this.enqueue(viewer.accountId, periodStart, limit);
    if (usedAfter === null) {
      headers['X-RateLimit-Remaining-Monthly'] = '0';
      if (period) headers['Retry-After'] = String(Math.max(1, Math.ceil((period.resetsAt.getTime() - now.getTime()) / 1000)));
      throw new RateLimitExceededError(
        period
          ? `Monthly quota of ${limit} requests for the ${plan.name} plan exceeded; it resets on the next billing cycle (${period.resetsAt.toISOString()})`
          : `The ${plan.name} plan's one-time allowance of ${limit} requests is used up; it does not reset: upgrade to a paid plan to continue`,
        headers,
      );
    }
    headers['X-RateLimit-Remaining-Monthly'] = String(Math.max(0, limit - usedAfter));
    return headers;
  }

  private enqueue(accountId: string, period: string, limit: number): Promise<number | null> {
    const key = `${accountId} ${period}`;
    let queue = this.queued.get(key);
    if (!queue) {
      queue = { accountId, period, limit, waiters: [] };
      this.queued.set(key, queue);
      if (!this.inFlight.has(key)) queueMicrotask(() => void this.flush(key));
    }
    const waiters = queue.waiters;
    return new Promise((resolve, reject) => waiters.push({ resolve, reject }));
  }

  private async flush(key: string): Promise<void> {
    const queue = this.queued.get(key);
    if (!queue) return;
    this.queued.delete(key);
    this.inFlight.add(key);
    try {
      const { granted, used } = await grantUnits(this.db, queue.accountId, queue.period, queue.limit, queue.waiters.length);
      // The first `granted` waiters share the units in order, each seeing the count after its own.
      const before = used - granted;
      queue.waiters.forEach((w, i) => w.resolve(i < granted ? before + i + 1 : null));
    } catch (error) {
      for (const w of queue.waiters) w.reject(error);
    } finally {
      this.inFlight.delete(key);
      if (this.queued.has(key)) void this.flush(key);
    }
  }
}
