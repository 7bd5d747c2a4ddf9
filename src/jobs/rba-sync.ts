// One poll of the RBA: read the day's RSS feed and store it; when the stored days have a gap the
// feed does not bridge, read the CSV too. Fetching is readSource, parsing the pure parsers in
// src/rba, storing importRates (which detects the publication and tells every process).
import { setImmediate as nextTurn } from 'node:timers/promises';
import { findNewestDate } from '../db/rates.js';
import { latestDueDate, nextBusinessDay } from '../domain/calendar.js';
import { DomainError } from '../errors.js';
import type { RbaTable } from '../rba/index.js';
import type { Services } from '../services.js';
import { batchOf, importRates, type ImportOutcome } from './import-rates.js';
import { readSource } from './read-source.js';

/** A source that could not be read or parsed (missing file, HTTP error, malformed content). */
export class RbaSourceError extends DomainError {
  readonly code = 'rba_source_failed';
  constructor(
    message: string,
    /** the path or URL that could not be read or parsed */
    readonly rbaSource: string,
  ) {
    super(message);
  }
}

export interface SyncSummary {
  /** what was read, in order (paths or URLs) */
  sources: string[];
  /** days read from 2018 on, summed over the sources (a day in both the feed and the CSV counts twice) */
  days: number;
  /** days not stored before */
  inserted: number;
  /** stored days that gained or corrected a value */
  updated: number;
  /** the newest day this poll published (a day newer than any stored before), or null */
  published: string | null;
  /** webhook deliveries recorded for the publication */
  deliveries: number;
  /** the newest stored day after the poll */
  newestDate: string | null;
}

export interface SyncOptions {
  /** read only this path or URL (CSV, XLS or RSS) instead of the configured feed and CSV */
  source?: string;
  /** aborts the reads (a service stopping) */
  signal?: AbortSignal;
  /** time limit for each read; default 60 s */
  readTimeoutMs?: number;
}

const READ_TIMEOUT_MS = 60_000;

/**
 * Whether the CSV is needed after the feed: something due is missing (the newest stored day before
 * the poll is older than the newest due) and the feed does not reach back to the first business
 * day after it, so days in between would stay missing. Nothing stored at all is such a gap.
 */
export function csvNeeded(input: { storedBefore: string | null; feedOldest: string | null; latestDue: string }): boolean {
  const { storedBefore, feedOldest, latestDue } = input;
  if (storedBefore === null) return true;
  if (storedBefore >= latestDue) return false;
  return feedOldest === null || feedOldest > nextBusinessDay(storedBefore);
}

/** Reads and parses one source; RbaSourceError when it cannot be read or is malformed. */
export async function readTable(source: string, options: Pick<SyncOptions, 'signal' | 'readTimeoutMs'>): Promise<RbaTable> {
  const signals = [AbortSignal.timeout(options.readTimeoutMs ?? READ_TIMEOUT_MS), ...(options.signal ? [options.signal] : [])];
  let bytes: Uint8Array;
  try {
    bytes = await readSource(source, { signal: AbortSignal.any(signals), progress: false });
  } catch (error) {
    const reason =
      (error as Error).name === 'TimeoutError' ? `no answer within ${(options.readTimeoutMs ?? READ_TIMEOUT_MS) / 1000} s` : (error as Error).message;
    throw new RbaSourceError(`Cannot read ${source}: ${reason}`, source);
  }
  // The parsers, and the XLS and XML libraries under them, load on the first read rather than with
  // the service (a start serves from the stored history first).
  const { parseRbaFile } = await import('../rba/detect.js');
  // Parsing is one synchronous step: a turn of the loop first keeps it apart from the read and the store.
  await nextTurn();
  try {
    return parseRbaFile(bytes, source);
  } catch (error) {
    throw new RbaSourceError(`${source}: ${(error as Error).message}`, source);
  }
}

/** One poll now. Throws RbaSourceError when a source cannot be read or parsed (what was stored before stays). */
export async function syncRates(services: Services, options: SyncOptions = {}): Promise<SyncSummary> {
  const outcomes: ImportOutcome[] = [];
  const sources: string[] = [];
  const store = async (source: string, table: RbaTable) => {
    sources.push(source);
    outcomes.push(await importRates(services, batchOf(source, table)));
  };

  if (options.source !== undefined) {
    await store(options.source, await readTable(options.source, options));
  } else {
    const storedBefore = await findNewestDate(services.db);
    const feed = await readTable(services.rbaSources.rss, options);
    await store(services.rbaSources.rss, feed);
    const gap = csvNeeded({ storedBefore, feedOldest: feed.days[0]?.date ?? null, latestDue: latestDueDate(services.clock()) });
    if (gap) await store(services.rbaSources.csv, await readTable(services.rbaSources.csv, options));
  }

  let published: string | null = null;
  for (const outcome of outcomes) {
    const day = outcome.publishedDay?.date;
    if (day && (published === null || day > published)) published = day;
  }
  return {
    sources,
    days: outcomes.reduce((n, o) => n + o.days, 0),
    inserted: outcomes.reduce((n, o) => n + o.inserted, 0),
    updated: outcomes.reduce((n, o) => n + o.updated, 0),
    published,
    deliveries: outcomes.reduce((n, o) => n + o.deliveries, 0),
    newestDate: await findNewestDate(services.db),
  };
}
