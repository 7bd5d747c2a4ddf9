// The monthly quota of keyed requests (D16, D17). The count lives on the account row; a process
// takes units from it in leases and hands them to its requests from memory. Leases are large
// while much of the quota is left and shrink to one unit near its end, so the database is asked
// rarely under load yet the last units go to exactly as many requests as there are units, across
// every process. Requests that arrive while a lease is being taken wait and share it. Unused
// units go back to the row when a lease sits idle, when keys or plans change, and at shutdown.
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { leaseUnits, returnUnits } from '../db/quota.js';
import { LIFETIME_PERIOD, billingPeriod, type BillingPeriod } from '../domain/billing.js';
import { PLAN_LIMITS } from '../domain/plans.js';
import { RateLimitExceededError } from '../errors.js';
import type { Viewer } from '../schema/context.js';

const IDLE_RETURN_MS = 1_000;

interface Waiter {
  resolve(countAfter: number | null): void;
  reject(error: unknown): void;
}

/** One account's units for one period in this process. */
interface Lease {
  accountId: string;
  /** the period this process's requests fall in */
  period: string;
  /** the period the leased units were counted in (later than `period` on a lagging clock) */
  countedIn: string;
  limit: number;
  /** the period's count once the next unit is handed out, less one */
  handedOut: number;
  /** the period's count the lease reaches: units handedOut+1 … end are this process's to give */
  end: number;
  waiters: Waiter[];
  taking: boolean;
  lastUsed: number;
}

export class MonthlyQuota {
  private readonly leases = new Map<string, Lease>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: () => Date,
    private readonly onError: (error: unknown) => void,
  ) {
    this.timer = setInterval(() => void this.returnIdle(Date.now() - IDLE_RETURN_MS), IDLE_RETURN_MS);
    this.timer.unref();
  }

  /** One unit for this request, or a 429 `rate_limit_exceeded`; returns the quota headers. */
  async take(viewer: Viewer): Promise<Record<string, string>> {
    const plan = PLAN_LIMITS[viewer.plan];
    const now = this.clock();
    const period = plan.resets ? this.periodOf(viewer.billingDay, now) : null;
    const limit = plan.monthlyRequests;
    const headers: Record<string, string> = { 'X-RateLimit-Limit-Monthly': String(limit) };
    if (period) headers['X-RateLimit-Reset'] = period.resetsAtText;

    const count = await this.unit(viewer.accountId, period?.start ?? LIFETIME_PERIOD, limit);
    if (count === null) {
      headers['X-RateLimit-Remaining-Monthly'] = '0';
      if (period) headers['Retry-After'] = String(Math.max(1, Math.ceil((period.resetsAt.getTime() - now.getTime()) / 1000)));
      throw new RateLimitExceededError(
        period
          ? `Monthly quota of ${limit} requests for the ${plan.name} plan exceeded; it resets on the next billing cycle (${period.resetsAt.toISOString()})`
          : `The ${plan.name} plan's one-time allowance of ${limit} requests is used up; it does not reset: upgrade to a paid plan to continue`,
        headers,
      );
    }
    headers['X-RateLimit-Remaining-Monthly'] = String(Math.max(0, limit - count));
    return headers;
  }

  private readonly periods = new Map<number, { period: BillingPeriod & { resetsAtText: string }; from: number; until: number }>();

  /** billingPeriod, remembered per billing day while it lasts (every request asks). */
  private periodOf(billingDay: number, now: Date): BillingPeriod & { resetsAtText: string } {
    const at = now.getTime();
    const known = this.periods.get(billingDay);
    if (known && at >= known.from && at < known.until) return known.period;
    const period = { ...billingPeriod(billingDay, now), resetsAtText: '' };
    period.resetsAtText = period.resetsAt.toISOString();
    this.periods.set(billingDay, { period, from: Date.parse(`${period.start}T00:00:00Z`), until: period.resetsAt.getTime() });
    return period;
  }

  /** The period's count with this request's unit, or null when none is left. */
  private unit(accountId: string, period: string, limit: number): Promise<number | null> {
    let lease = this.leases.get(accountId);
    if (lease && (lease.period !== period || lease.limit !== limit)) {
      // A new period or plan: what is left of the old lease goes back before a new one is taken.
      this.leases.delete(accountId);
      void this.giveBack(lease);
      lease = undefined;
    }
    if (!lease) {
      lease = { accountId, period, countedIn: period, limit, handedOut: 0, end: 0, waiters: [], taking: false, lastUsed: Date.now() };
      this.leases.set(accountId, lease);
    }
    lease.lastUsed = Date.now();
    if (lease.handedOut < lease.end && lease.waiters.length === 0) return Promise.resolve(++lease.handedOut);
    const waiting = new Promise<number | null>((resolve, reject) => lease.waiters.push({ resolve, reject }));
    if (!lease.taking) void this.takeLease(lease);
    return waiting;
  }

  private async takeLease(lease: Lease): Promise<void> {
    lease.taking = true;
    try {
      for (this.serve(lease); lease.waiters.length > 0; this.serve(lease)) {
        // Every unit held is handed out by now: the new lease replaces an empty one.
        const { start, granted, period } = await leaseUnits(this.db, lease.accountId, lease.period, lease.limit, lease.waiters.length);
        if (granted === 0) {
          for (const w of lease.waiters.splice(0)) w.resolve(null);
          break;
        }
        lease.countedIn = period;
        lease.handedOut = start;
        lease.end = start + granted;
      }
    } catch (error) {
      for (const w of lease.waiters.splice(0)) w.reject(error);
    } finally {
      lease.taking = false;
    }
  }

  private serve(lease: Lease): void {
    while (lease.waiters.length > 0 && lease.handedOut < lease.end) lease.waiters.shift()!.resolve(++lease.handedOut);
  }

  private async giveBack(lease: Lease): Promise<void> {
    const unused = lease.end - lease.handedOut;
    lease.end = lease.handedOut;
    if (unused > 0) await returnUnits(this.db, lease.accountId, lease.countedIn, unused).catch(this.onError);
  }

  private async returnIdle(before: number): Promise<void> {
    for (const [accountId, lease] of this.leases) {
      if (lease.lastUsed < before && !lease.taking && lease.waiters.length === 0) {
        this.leases.delete(accountId);
        await this.giveBack(lease);
      }
    }
  }

  /** Returns every unused unit to the database (keys or plans changed, or shutting down). */
  async returnAll(): Promise<void> {
    await this.returnIdle(Infinity);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.returnAll();
  }
}
