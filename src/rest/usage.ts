// Per-request usage by day, account, key, endpoint and status, for analytics. Counted in memory and
// written in batches, so recording costs no database round trip per request.
import type { Kysely } from 'kysely';
import type { Database, UsageDailyTable } from '../db/database.js';
import { addUsage } from '../db/usage.js';
import { sydneyDate } from '../domain/calendar.js';
import type { ApiKeyViewer } from '../schema/context.js';

const FLUSH_EVERY_MS = 5_000;

export class UsageRecorder {
  /** key id → `endpoint status day` → row: nested so the hot path builds no long keys */
  private counts = new Map<string, Map<string, UsageDailyTable>>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly db: Kysely<Database>, private readonly clock: () => Date, onError: (error: unknown) => void) {
    this.timer = setInterval(() => void this.flush().catch(onError), FLUSH_EVERY_MS);
    this.timer.unref();
  }

  record(viewer: ApiKeyViewer, endpoint: string, status: number): void {
    const day = this.sydneyDay();
    let ofKey = this.counts.get(viewer.keyId);
    if (!ofKey) this.counts.set(viewer.keyId, (ofKey = new Map<string, UsageDailyTable>()));
    const key = `${endpoint} ${status} ${day}`;
    const row = ofKey.get(key);
    if (row) row.requests++;
    else ofKey.set(key, { day, account_id: viewer.accountId, key_id: viewer.keyId, endpoint, status, requests: 1 });
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
    const pending = [...this.counts.values()].flatMap((ofKey) => [...ofKey.values()]);
    this.counts = new Map();
    try {
      await addUsage(this.db, pending);
    } catch (error) {
      // Keep the counts for the next flush rather than lose them.
      for (const row of pending) {
        let ofKey = this.counts.get(row.key_id);
        if (!ofKey) this.counts.set(row.key_id, (ofKey = new Map<string, UsageDailyTable>()));
        const key = `${row.endpoint} ${row.status} ${row.day}`;
        const current = ofKey.get(key);
        if (current) current.requests += row.requests;
        else ofKey.set(key, row);
      }
      throw error;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
