// Every rate the schema serves comes from memory: the process holds the whole stored history
// (RateHistory), loaded once and replaced as a whole when the change feed reports a change to the
// stored rates. A request reads one generation from start to end, whatever changes meanwhile.
import type { RateHistoryStore } from '../db/rate-history-store.js';
import type { RateHistory } from '../domain/rate-history.js';

export interface RateLoaders {
  /** the history this request reads: the same generation for all of its fields */
  history(): Promise<RateHistory>;
}

export function createRateLoaders(store: RateHistoryStore): RateLoaders {
  let history: Promise<RateHistory> | undefined;
  return { history: () => (history ??= store.current()) };
}
