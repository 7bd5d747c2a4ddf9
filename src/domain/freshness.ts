// D22 (docs/decisions.md): the stored data is stale two hours past the publication it is due.
import type { RateHistory } from './rate-history.js';

const STALE_AFTER_MS = 2 * 60 * 60 * 1000;

export interface Freshness {
  /** true when nothing is stored */
  stale: boolean;
  newestRateDate: string | null;
}

export function freshnessOf(history: Pick<RateHistory, 'newestDate' | 'nextDue'>, now: Date): Freshness {
  const { newestDate, nextDue } = history;
  if (newestDate === null || nextDue === null) return { stale: true, newestRateDate: null };
  return { stale: now.getTime() > nextDue.getTime() + STALE_AFTER_MS, newestRateDate: newestDate };
}
