// Rates load through a per-request DataLoader (one query for many dates) backed by a process-level
// cache. Stored days only change through an import, which calls `invalidate()`.
import DataLoader from 'dataloader';
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { findDays, findFreshness, type Freshness, type RateValues, type StoredDay } from '../db/rates.js';
import { addDays, daysBetween } from '../domain/calendar.js';
import { canonicalRates } from '../domain/currencies.js';

const MAX_CACHED_DAYS = 20_000; // every date from 2018 to 2070; past that the cache starts over

const MAX_CACHED_SERIES = 512;

export class RateCache {
  private readonly days = new Map<string, RateValues | null>();
  private readonly seriesByRange = new Map<string, Promise<StoredDay[]>>();
  private freshnessPromise: Promise<Freshness> | null = null;
  private changes = 0;

  /** Bumped by every change to the stored rates: anything derived under an older value is stale. */
  get generation(): number {
    return this.changes;
  }

  constructor(private readonly db: Kysely<Database>) {}

  freshness(): Promise<Freshness> {
    if (!this.freshnessPromise) {
      const generation = this.changes;
      const pending = findFreshness(this.db);
      this.freshnessPromise = pending;
      // A failed read (store down) must not stick: the next request asks the store again.
      pending.catch(() => {
        if (this.changes === generation && this.freshnessPromise === pending) this.freshnessPromise = null;
      });
    }
    return this.freshnessPromise;
  }

  /** A day already in the cache (null: known to have no data), or undefined when it must be loaded. */
  peek(date: string): RateValues | null | undefined {
    return this.days.get(date);
  }

  async loadDays(dates: readonly string[]): Promise<(RateValues | null)[]> {
    const missing = dates.filter((d) => !this.days.has(d));
    if (missing.length > 0) {
      const generation = this.changes;
      const found = await findDays(this.db, missing);
      // Served values are the shortest exact text ('61.40' is 61.4), in the order of the code list:
      // normalised once, here.
      for (const [date, rates] of found) found.set(date, canonicalRates(rates));
      // A load that raced an import may hold pre-import values: use them for this request only.
      if (generation !== this.changes) return dates.map((d) => found.get(d) ?? this.days.get(d) ?? null);
      if (this.days.size + missing.length > MAX_CACHED_DAYS) this.days.clear();
      for (const d of missing) this.days.set(d, found.get(d) ?? null);
    }
    return dates.map((d) => this.days.get(d) ?? null);
  }

  /** The stored days in [from, to], ascending; the same array for the same range until an import. */
  series(from: string, to: string): Promise<StoredDay[]> {
    const key = `${from} ${to}`;
    let series = this.seriesByRange.get(key);
    if (!series) {
      const dates: string[] = [];
      for (let i = 0, n = daysBetween(from, to); i <= n; i++) dates.push(addDays(from, i));
      series = this.loadDays(dates).then((loaded) =>
        loaded.flatMap((rates, i) => (rates ? [{ date: dates[i]!, rates }] : [])),
      );
      if (this.seriesByRange.size >= MAX_CACHED_SERIES) this.seriesByRange.clear();
      this.seriesByRange.set(key, series);
      series.catch(() => this.seriesByRange.delete(key));
    }
    return series;
  }

  invalidate(): void {
    this.changes++;
    this.days.clear();
    this.seriesByRange.clear();
    this.freshnessPromise = null;
  }
}

export interface RateLoaders {
  /** a stored day's rates by date, null when nothing is stored for that date */
  day: DataLoader<string, RateValues | null>;
}

export function createRateLoaders(cache: RateCache): RateLoaders {
  return { day: new DataLoader((dates) => cache.loadDays(dates)) };
}
