// Per-request usage by day, for analytics: keyed requests by account, key, endpoint and status;
// keyless /convert requests by status; and the pairs /convert answered. Counted in memory and
// written in batches, so recording costs no database round trip per request.
import type { Kysely } from 'kysely';
import type { ConversionsDailyTable, Database, KeylessUsageDailyTable, UsageDailyTable } from '../db/database.js';
import { addUsage } from '../db/usage.js';
import { sydneyDate } from '../domain/calendar.js';
import type { ApiKeyViewer } from '../schema/context.js';
import { decodeQuery, parseCode } from './params.js';

const FLUSH_EVERY_MS = 5_000;
/** the route whose keyless requests and pairs are counted: the data endpoint with a keyless free mode (D19 in docs/decisions.md) */
const CONVERT = 'Convert';

/** Rows counted in memory under a two-part key (nested, so the hot path builds no long keys). */
class DailyCounts<Row extends { requests: number }> {
  private counts = new Map<string, Map<string, Row>>();

  /**
   * Adds `requests` to the row under the two keys; false when there is none yet, and the caller
   * `set`s it (no function made per request for a row that usually exists).
   */
  increment(outer: string, inner: string, requests = 1): boolean {
    const row = this.counts.get(outer)?.get(inner);
    if (!row) return false;
    row.requests += requests;
    return true;
  }

  set(outer: string, inner: string, row: Row): void {
    let group = this.counts.get(outer);
    if (!group) this.counts.set(outer, (group = new Map<string, Row>()));
    group.set(inner, row);
  }

  /** Hands over what is counted and starts again from nothing. */
  take(): DailyCounts<Row> {
    const taken = new DailyCounts<Row>();
    taken.counts = this.counts;
    this.counts = new Map();
    return taken;
  }

  /** Adds counts taken earlier back (a write that failed), to be written with the next flush. */
  restore(taken: DailyCounts<Row>): void {
    for (const [outer, group] of taken.counts) {
      for (const [inner, row] of group) if (!this.increment(outer, inner, row.requests)) this.set(outer, inner, row);
    }
  }

  rows(): Row[] {
    return [...this.counts.values()].flatMap((group) => [...group.values()]);
  }
}

/** The pair of an answered /convert request, from its query string; null when it cannot be read. */
function conversionPair(search: string): { from: string; to: string; dated: boolean } | null {
  try {
    const params = decodeQuery(search);
    return { from: parseCode(params.get('from') ?? '', 'from'), to: parseCode(params.get('to') ?? '', 'to'), dated: params.has('date') };
  } catch {
    return null;
  }
}

/** 2xx and 304: a conversion the client got (a 304 confirms the one it holds). */
const answered = (status: number) => (status >= 200 && status < 300) || status === 304;

export class UsageRecorder {
  private keyed = new DailyCounts<UsageDailyTable>();
  private keyless = new DailyCounts<KeylessUsageDailyTable>();
  private conversions = new DailyCounts<ConversionsDailyTable>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: () => Date,
    onError: (error: unknown) => void,
  ) {
    this.timer = setInterval(() => void this.flush().catch(onError), FLUSH_EVERY_MS);
    this.timer.unref();
  }

  /**
   * Counts one answered request of route `endpoint`: by account and key when it had a key; a
   * request that sent no key (`viewer` null) only on /convert. `url`'s query is read only for an
   * answered /convert, so the keyed hot path parses nothing.
   */
  record(viewer: ApiKeyViewer | null, endpoint: string, status: number, url: URL): void {
    if (!viewer && endpoint !== CONVERT) return;
    const day = this.sydneyDay();
    if (viewer) {
      const key = `${endpoint} ${status} ${day}`;
      if (!this.keyed.increment(viewer.keyId, key)) {
        this.keyed.set(viewer.keyId, key, { day, account_id: viewer.accountId, key_id: viewer.keyId, endpoint, status, requests: 1 });
      }
    } else {
      const key = `${status} ${day}`;
      if (!this.keyless.increment(endpoint, key)) this.keyless.set(endpoint, key, { day, endpoint, status, requests: 1 });
    }
    if (endpoint !== CONVERT || !answered(status)) return;
    const pair = conversionPair(url.search);
    if (!pair) return;
    const keyed = viewer !== null;
    const key = `${pair.from}${pair.to} ${keyed} ${pair.dated}`;
    if (!this.conversions.increment(day, key)) {
      this.conversions.set(day, key, { day, from_code: pair.from, to_code: pair.to, keyed, dated: pair.dated, requests: 1 });
    }
  }

  /**
   * Days are Sydney dates, as analysts ask for them. Sydney's offset from UTC is whole hours, so a
   * date found once holds for the rest of its UTC minute: the hot path converts once a minute.
   */
  private day = { minute: Number.NaN, date: '' };
  private sydneyDay(): string {
    const now = this.clock();
    const minute = Math.floor(now.getTime() / 60_000);
    if (minute !== this.day.minute) this.day = { minute, date: sydneyDate(now) };
    return this.day.date;
  }

  async flush(): Promise<void> {
    const keyed = this.keyed.take();
    const keyless = this.keyless.take();
    const conversions = this.conversions.take();
    try {
      await addUsage(this.db, { keyed: keyed.rows(), keyless: keyless.rows(), conversions: conversions.rows() });
    } catch (error) {
      // Keep the counts for the next flush rather than lose them (the batch is one transaction).
      this.keyed.restore(keyed);
      this.keyless.restore(keyless);
      this.conversions.restore(conversions);
      throw error;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
