// The history to hold (RBA_HISTORY_URLS): the RBA publishes 2018–2022 only as a workbook, never in
// the feed or the CSV. At each catch-up the leading process stores every listed workbook not yet
// stored, one at a time, and records each success so it is fetched once. History is no publication
// (no webhooks). A failure is logged and left for the next catch-up; serving never waits for it.
import { findImportedHistory, recordHistoryImport } from '../db/history-imports.js';
import type { Services } from '../services.js';
import { batchOf, importRates } from './import-rates.js';
import { RbaSourceError, readTable } from './rba-sync.js';

export interface HistoryLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface HistoryOutcome {
  /** sources stored by this run */
  stored: string[];
  /** sources that failed (to be tried at the next catch-up) */
  failed: string[];
}

/** Workbooks are larger than the daily files: a few MB over a slow link. */
const HISTORY_READ_TIMEOUT_MS = 5 * 60_000;

export async function importHistory(
  services: Services,
  options: { logger: HistoryLogger; signal?: AbortSignal; readTimeoutMs?: number },
): Promise<HistoryOutcome> {
  const { logger } = options;
  const outcome: HistoryOutcome = { stored: [], failed: [] };
  const listed = services.rbaSources.history;
  const done = await findImportedHistory(services.db, listed);
  for (const source of listed) {
    if (done.has(source) || options.signal?.aborted) continue;
    logger.info({ source }, `history: fetching ${source}`);
    try {
      const table = await readTable(source, { signal: options.signal, readTimeoutMs: options.readTimeoutMs ?? HISTORY_READ_TIMEOUT_MS });
      const stored = await importRates(services, batchOf(source, table), { publishes: false });
      const first = table.days[0]?.date;
      const last = table.days.at(-1)?.date;
      if (first && last) {
        await recordHistoryImport(services.db, { source, days: stored.days, firstDate: first, lastDate: last, importedAt: services.clock() });
      }
      outcome.stored.push(source);
      logger.info(
        { source, days: stored.days, inserted: stored.inserted, updated: stored.updated, firstDate: first, lastDate: last },
        `history: stored ${stored.days} days (${first} to ${last}) from ${source}`,
      );
    } catch (error) {
      outcome.failed.push(source);
      const detail = error instanceof RbaSourceError ? { error: error.message } : { err: error };
      logger.warn({ source, ...detail }, `history: ${source} not stored; it is tried again at the next catch-up`);
    }
  }
  return outcome;
}
