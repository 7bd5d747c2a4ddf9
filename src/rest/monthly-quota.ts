// The monthly quota of keyed requests (D16, D17, D35 in docs/decisions.md). The counts live on the
// account row, and nothing is taken from them ahead of use: a unit is granted to a request that is
// ready to be answered, so a process that dies or loses its store holds no units that could be
// lost. To keep the database out of most requests' way, the requests that arrive while a grant is
// in flight wait for the next statement and share it, whatever their accounts: that statement asks
// each account for exactly as many units as its requests waiting and hands them out in order, so a
// burst of requests, of one account or of many, costs one statement and one commit, and near the
// end of a quota the same statement simply grants that account fewer units than asked. A key with a
// monthly cap is held to it in the same statement, so the cap is as exact as the quota. The way of a
// grant from the limits step to the account row: docs/architecture.md, "The quota".
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { findAccountById } from '../db/accounts.js';
import type { Database } from '../db/database.js';
import { LRUCache } from 'lru-cache';
import { grantUnits, type Grant, type GrantAsk, type QuotaCount } from '../db/quota.js';
import { billingPeriod } from '../domain/billing.js';
import { secondsUntil } from '../domain/calendar.js';
import { PLAN_LIMITS } from '../domain/plans.js';
import { InvalidApiKeyError } from '../errors.js';
import { RateLimitedError } from '../http/http-errors.js';
import type { ApiKeyViewer } from '../schema/context.js';
import { UnansweredGrants } from './unanswered-grants.js';

/**
 * What a request was granted: its account's count with its unit (and its capped key's), or which
 * count had none left for it.
 */
type Granted = { count: number; keyCount: number | null } | { none: 'quota' | 'cap' };

/** A request waiting for a unit of its account's count (and of its key's, when the key is capped). */
interface Waiter {
  accountId: string;
  count: QuotaCount;
  limit: number;
  key: { id: string; cap: number } | null;
  resolve(granted: Granted): void;
  reject(error: unknown): void;
}

/** One grant's ask for one account, and the requests it is for, in order. */
interface Ask extends GrantAsk {
  waiters: Waiter[];
}

export interface MonthlyQuotaOptions {
  /**
   * Whether a grant commits apart from its statement: on a Postgres server, where the answer to a
   * commit can be lost (the server stopped or frozen at that instant). The statement's answer then
   * names the grant's transaction before the commit is sent, and a grant whose commit goes
   * unanswered is settled later (src/rest/unanswered-grants.ts). PGlite runs in the service's own
   * process, where a commit cannot go unanswered, so a grant there is one statement that commits by
   * itself.
   */
  commitApart: boolean;
  logger: Pick<Logger, 'warn' | 'error'>;
}

export class MonthlyQuota {
  /** the requests waiting for the next grant, in the order they came */
  private waiting: Waiter[] = [];
  /** whether a run of grants is under way: it takes whoever waits when it is done with a grant */
  private granting = false;
  /** grants whose commit went unanswered, until the database says whether they committed */
  readonly unanswered: UnansweredGrants;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: () => Date,
    private readonly options: MonthlyQuotaOptions,
  ) {
    this.unanswered = new UnansweredGrants(db, options.logger, { pruneMarks: options.commitApart });
  }

  /**
   * One unit for this request (a key's, or a dashboard view's), or a 429 `rate_limit_exceeded`
   * (the account's quota, or the key's monthly cap); returns the quota headers.
   */
  async take(
    viewer: Pick<ApiKeyViewer, 'accountId' | 'plan' | 'billingDay'> & Partial<Pick<ApiKeyViewer, 'keyId' | 'monthlyCap'>>,
  ): Promise<Record<string, string>> {
    const plan = PLAN_LIMITS[viewer.plan];
    const now = this.clock();
    const period = plan.resets ? billingPeriod(viewer.billingDay, now) : null;
    const limit = plan.monthlyRequests;
    const headers: Record<string, string> = { 'X-RateLimit-Limit-Monthly': String(limit) };
    if (period) headers['X-RateLimit-Reset'] = period.resetsAt.toISOString();

    const cap = viewer.monthlyCap ?? null;
    const key = cap !== null && viewer.keyId !== undefined ? { id: viewer.keyId, cap } : null;
    const granted = await this.unit(viewer.accountId, { period: period?.start ?? null }, limit, key);
    if ('none' in granted) {
      headers['X-RateLimit-Remaining-Monthly'] = '0';
      if (period) headers['Retry-After'] = String(secondsUntil(period.resetsAt, now));
      throw new RateLimitedError(granted.none === 'cap' ? capReached(cap!, period) : quotaUsedUp(plan.name, limit, period), headers);
    }
    // A capped key has left what is left of both counts.
    const left = limit - granted.count;
    headers['X-RateLimit-Remaining-Monthly'] = String(Math.max(0, granted.keyCount === null ? left : Math.min(left, cap! - granted.keyCount)));
    return headers;
  }

  /**
   * The quota's headers for a keyed request refused before it took a unit: the count as it stands,
   * as this process last knew it (from its own last grant, or read for a refusal) within the last
   * KNOWN_COUNT_TTL_MS, else read from the account. None when the store cannot say.
   */
  async standing(viewer: Pick<ApiKeyViewer, 'accountId' | 'plan' | 'billingDay'>): Promise<Record<string, string>> {
    const plan = PLAN_LIMITS[viewer.plan];
    const period = plan.resets ? billingPeriod(viewer.billingDay, this.clock()) : null;
    const count = period?.start ?? null;
    let used = this.known.get(viewer.accountId)?.[count ?? FREE];
    if (used === undefined) {
      const account = await findAccountById(this.db, viewer.accountId).catch(() => null);
      if (!account) return {};
      used = count === null ? account.free_used : account.quota_period >= count ? account.quota_used : 0;
      this.remember(viewer.accountId, count, used);
    }
    const limit = plan.monthlyRequests;
    const headers: Record<string, string> = { 'X-RateLimit-Limit-Monthly': String(limit), 'X-RateLimit-Remaining-Monthly': String(Math.max(0, limit - used)) };
    if (period) headers['X-RateLimit-Reset'] = period.resetsAt.toISOString();
    return headers;
  }

  /** account id → its counts as last known here, by period ('YYYY-MM-DD', or FREE) */
  private readonly known = new LRUCache<string, Record<string, number>>({ max: 10_000, ttl: KNOWN_COUNT_TTL_MS });

  private remember(accountId: string, count: string | null, used: number): void {
    this.known.set(accountId, { [count ?? FREE]: used });
  }

  /** The counts with this request's unit, or which had none left. */
  private unit(accountId: string, count: QuotaCount, limit: number, key: Waiter['key']): Promise<Granted> {
    const waiting = new Promise<Granted>((resolve, reject) => this.waiting.push({ accountId, count, limit, key, resolve, reject }));
    if (!this.granting) {
      this.granting = true;
      // The statement goes out once the requests read in this turn of the event loop and the next
      // have joined the queue. PGlite runs a statement to its end before the next request is read,
      // so without a turn every request would have a statement of its own; the second turn takes in
      // the requests that arrived while this turn's were being handled, so batches are larger and
      // statements fewer.
      setImmediate(() => setImmediate(() => void this.grant()));
    }
    return waiting;
  }

  /**
   * The waiting requests as the asks of one grant, an ask per account. An account's requests for
   * another count, limit or capped key than its first (its plan or period changed meanwhile, or
   * another of its keys has a cap) wait for the next grant: a statement asks each account once.
   */
  private nextAsks(): Ask[] {
    const asks = new Map<string, Ask>();
    const later: Waiter[] = [];
    for (const waiter of this.waiting) {
      const ask = asks.get(waiter.accountId);
      if (!ask) {
        const { accountId, count, limit, key } = waiter;
        asks.set(accountId, { accountId, count, limit, key, wanted: 1, waiters: [waiter] });
      } else if (ask.limit === waiter.limit && ask.count.period === waiter.count.period && sameKey(ask.key ?? null, waiter.key)) {
        ask.wanted = ask.waiters.push(waiter);
      } else {
        later.push(waiter);
      }
    }
    this.waiting = later;
    return [...asks.values()];
  }

  /** Grants for whoever waits, one statement after another, until nobody does. */
  private async grant(): Promise<void> {
    let asks: Ask[] = [];
    try {
      while (this.waiting.length > 0) {
        asks = this.nextAsks();
        const grants = await this.grantOnce(asks);
        grants.forEach((grant, i) => grant && this.remember(asks[i]!.accountId, grant.countedIn, grant.start + grant.granted));
        handAll(asks, grants);
        asks = [];
      }
    } catch (error) {
      // Whoever waits behind a failed grant fails with it rather than wait out another bound.
      for (const waiter of [...waitersOf(asks), ...this.waiting.splice(0)]) waiter.reject(error);
    } finally {
      this.granting = false;
    }
  }

  /**
   * One grant. On PGlite the statement commits by itself. On a Postgres server it runs in a
   * transaction of its own and writes a mark there, so that when the answer to its commit is lost
   * the grant, already known, can be asked about later (src/rest/unanswered-grants.ts).
   */
  private async grantOnce(asks: readonly Ask[]): Promise<(Grant | null)[]> {
    if (!this.options.commitApart) return grantUnits(this.db, asks);
    const mark = randomUUID();
    const answered: { grants?: (Grant | null)[] } = {};
    try {
      await this.db.transaction().execute(async (transaction) => {
        answered.grants = await grantUnits(transaction, asks, mark);
      });
      return answered.grants!;
    } catch (error) {
      // Answered but not known to have committed: its requests fail, and it is settled later.
      answered.grants?.forEach((grant, i) => grant && this.unanswered.add(asks[i]!.accountId, grant));
      throw error;
    }
  }
}

/**
 * How long a count known here answers for a refusal's headers: the refusals of a busy key cost no
 * read each, and another process's grants show within this.
 */
const KNOWN_COUNT_TTL_MS = 1_000;
/** the key of Free's one-time count among an account's known counts */
const FREE = 'free';

const waitersOf = (asks: readonly Ask[]): Waiter[] => asks.flatMap((ask) => ask.waiters);

/** Each ask's grant to its requests. */
function handAll(asks: readonly Ask[], grants: readonly (Grant | null)[]): void {
  asks.forEach((ask, i) => hand(ask.waiters, grants[i] ?? null));
}

/** Units to the requests of a batch in order (none left: which count ran out), or their error when the account is gone. */
function hand(batch: Waiter[], grant: Grant | null): void {
  if (!grant) {
    const error = new InvalidApiKeyError('Invalid API key: its account no longer exists');
    for (const waiter of batch) waiter.reject(error);
    return;
  }
  const { start, granted, keyStart } = grant;
  // The grant stopped short at the cap when the key's count reached it before the account's did.
  const short: 'quota' | 'cap' = keyStart !== null && keyStart + granted >= batch[0]!.key!.cap && start + granted < batch[0]!.limit ? 'cap' : 'quota';
  batch.forEach((waiter, i) => waiter.resolve(i < granted ? { count: start + i + 1, keyCount: keyStart === null ? null : keyStart + i + 1 } : { none: short }));
}

/** Both uncapped, or the same key with the same cap. */
const sameKey = (a: Waiter['key'], b: Waiter['key']): boolean => (a === null ? b === null : b !== null && a.id === b.id && a.cap === b.cap);

function quotaUsedUp(planName: string, limit: number, period: { resetsAt: Date } | null): string {
  return period
    ? `Monthly quota of ${limit} requests for the ${planName} plan exceeded; it resets on the next billing cycle (${period.resetsAt.toISOString()})`
    : `The ${planName} plan's one-time allowance of ${limit} requests is used up; it does not reset: upgrade to a paid plan to continue`;
}

function capReached(cap: number, period: { resetsAt: Date } | null): string {
  return period
    ? `This API key's monthly cap of ${cap} requests is reached (its monthlyCap restriction); it resets on the next billing cycle (${period.resetsAt.toISOString()})`
    : `This API key's cap of ${cap} requests of the one-time allowance is reached (its monthlyCap restriction)`;
}
