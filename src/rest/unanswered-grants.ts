// Grants whose commit went unanswered (a Postgres server stopped or frozen at that instant): each
// either committed or did not, and only the database knows. Their requests were answered 503, so
// a grant that did commit gives its units back (src/db/quota.ts). The database is asked again
// every SETTLE_INTERVAL_MS until it can say, and once more when the service stops; what a process
// still holds when it dies stays counted (README, "Quota units and a stalled store").
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/database.js';
import { refundIfCommitted, type Grant } from '../db/quota.js';
import { StoreUnavailableError } from '../errors.js';

const SETTLE_INTERVAL_MS = 500;

interface Unanswered {
  accountId: string;
  grant: Grant;
}

export class UnansweredGrants {
  private readonly waiting = new Set<Unanswered>();
  private timer: NodeJS.Timeout | null = null;
  private settling: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly logger: Pick<Logger, 'warn' | 'error'>,
  ) {}

  /** A grant whose commit was sent and never answered. */
  add(accountId: string, grant: Grant): void {
    if (grant.granted === 0) return; // it took nothing
    this.waiting.add({ accountId, grant });
    this.schedule();
  }

  /** How many are waiting for the database to say. */
  get size(): number {
    return this.waiting.size;
  }

  /** Asks the database once about every waiting grant; those it can say about are settled. */
  settle(): Promise<void> {
    this.settling ??= this.settleEach().finally(() => (this.settling = null));
    return this.settling;
  }

  /** Stops asking on a timer, after asking once more. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.settle();
    for (const { accountId, grant } of this.waiting) {
      this.logger.error(
        { accountId, units: grant.granted, transaction: grant.transaction },
        'quota: stopping before the database could say whether a grant whose commit went unanswered committed; if it did, its units stay counted',
      );
    }
    this.waiting.clear();
  }

  private schedule(): void {
    if (this.closed || this.timer || this.waiting.size === 0) return;
    this.timer = setTimeout(() => {
      void this.settle().finally(() => {
        this.timer = null;
        this.schedule();
      });
    }, SETTLE_INTERVAL_MS);
    this.timer.unref();
  }

  private async settleEach(): Promise<void> {
    for (const entry of this.waiting) {
      const { accountId, grant } = entry;
      try {
        const outcome = await refundIfCommitted(this.db, accountId, grant);
        if (outcome === 'in progress') continue;
        this.waiting.delete(entry);
        if (outcome === 'refunded') {
          this.logger.warn(
            { accountId, units: grant.granted, transaction: grant.transaction },
            'quota: a grant committed though its commit went unanswered and its requests were answered 503; its units are given back',
          );
        }
      } catch (error) {
        if (error instanceof StoreUnavailableError) return; // still away: ask again later
        this.waiting.delete(entry);
        this.logger.error(
          { err: error, accountId, units: grant.granted, transaction: grant.transaction },
          'quota: the database could not say whether a grant whose commit went unanswered committed; if it did, its units stay counted',
        );
      }
    }
  }
}
