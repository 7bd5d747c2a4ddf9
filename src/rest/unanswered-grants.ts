// Grants whose commit went unanswered (a Postgres server stopped or frozen at that instant): each
// either committed or did not, and only the database knows. Their requests were answered 503, so
// a grant that did commit gives its units back (src/db/quota.ts). The database is asked again
// every SETTLE_INTERVAL_MS until it can say, and once more when the service stops; what a process
// still holds when it dies stays counted (docs/reliability.md, "Quota units and a stalled store").
// The marks by which the database says are kept MARK_RETENTION_MS; a grant not settled within
// half that is given up, its units counted, before its mark could be gone.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/database.js';
import { pruneGrantMarks, refundIfCommitted, type Grant, type MarkedGrant } from '../db/quota.js';
import { StoreUnavailableError } from '../errors.js';

const SETTLE_INTERVAL_MS = 500;
const MARK_RETENTION_MS = 3_600_000;
const PRUNE_EVERY_MS = 600_000;
/** Old marks are deleted this many at a time, so that no statement of a prune runs long. */
const PRUNE_BATCH = 5_000;

interface Unanswered {
  accountId: string;
  grant: MarkedGrant;
  /** when it was added (ms since the epoch) */
  since: number;
}

export class UnansweredGrants {
  private readonly waiting = new Set<Unanswered>();
  private timer: NodeJS.Timeout | null = null;
  private settling: Promise<void> | null = null;
  private closed = false;
  private readonly pruning: NodeJS.Timeout | null = null;

  /** `pruneMarks`: whether this process removes old grant marks now and then (where grants write them). */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly logger: Pick<Logger, 'warn' | 'error'>,
    { pruneMarks }: { pruneMarks: boolean },
  ) {
    if (pruneMarks) {
      this.pruning = setInterval(() => void this.pruneMarks(), PRUNE_EVERY_MS);
      this.pruning.unref();
    }
  }

  /** A grant whose commit was sent and never answered. */
  add(accountId: string, grant: Grant): void {
    const { mark } = grant;
    // One that took nothing needs no refund; one without a mark committed with its statement.
    if (grant.granted === 0 || mark === null) return;
    this.waiting.add({ accountId, grant: { ...grant, mark }, since: Date.now() });
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
    if (this.pruning) clearInterval(this.pruning);
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.settle();
    for (const entry of this.waiting) this.giveUp(entry, 'stopping before the database could say');
  }

  /** Removes the marks too old for any grant still waiting to need. */
  async pruneMarks(): Promise<void> {
    try {
      const before = new Date(Date.now() - MARK_RETENTION_MS);
      while ((await pruneGrantMarks(this.db, before, PRUNE_BATCH)) === PRUNE_BATCH);
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) this.logger.error({ err: error }, 'quota: old grant marks could not be removed');
    }
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
      if (Date.now() - entry.since > MARK_RETENTION_MS / 2) {
        this.giveUp(entry, 'the database could not say for half an hour');
        continue;
      }
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
        this.giveUp(entry, 'the database could not say', error);
      }
    }
  }

  private giveUp(entry: Unanswered, why: string, error?: unknown): void {
    this.waiting.delete(entry);
    const { accountId, grant } = entry;
    this.logger.error(
      { ...(error !== undefined && { err: error }), accountId, units: grant.granted, transaction: grant.transaction },
      `quota: ${why} whether a grant whose commit went unanswered committed; if it did, its units stay counted`,
    );
  }
}
