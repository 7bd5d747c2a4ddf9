// Every rate the service serves comes from memory: each process holds the whole stored history
// (RateHistory), loaded once and replaced as a whole when the change feed reports a change to the
// stored rates (src/schema/rate-loaders.ts gives each request one generation of it).
import type { Kysely } from 'kysely';
import type { Database } from './database.js';
import { loadRateHistory } from './rates.js';
import type { RateHistory } from '../domain/rate-history.js';

/** Holds the current RateHistory of this process and replaces it when the stored rates change. */
export class RateHistoryStore {
  private loading: Promise<RateHistory> | null = null;
  private changes = 0;

  constructor(private readonly db: Kysely<Database>) {}

  /** Bumped by every change to the stored rates: anything derived under an older value is stale. */
  get generation(): number {
    return this.changes;
  }

  /**
   * The newest history: the one loaded after the last change heard, waiting for its load when it is
   * still running. A failed load (store down) is not kept: the next call reads the store again.
   */
  current(): Promise<RateHistory> {
    if (!this.loading) {
      const loading = loadRateHistory(this.db);
      this.loading = loading;
      loading.catch(() => {
        if (this.loading === loading) this.loading = null;
      });
    }
    return this.loading;
  }

  /**
   * The stored rates changed (an import here or in another process, or a reconnected feed that may
   * have missed one): read them again now, so the next request finds the new history ready or
   * waits for it, never an older one.
   */
  invalidate(): void {
    this.changes++;
    const loaded = this.loading !== null;
    this.loading = null;
    if (loaded) void this.current().catch(() => {});
  }

  /** Waits for a load in progress (before the database closes). */
  async settled(): Promise<void> {
    await this.loading?.catch(() => {});
  }
}
