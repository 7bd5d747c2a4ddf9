// Answers of read-only data routes, shared by identical requests for a second. A response depends
// only on the route, the query, the viewer's plan (its windows), the stored rates and the time
// (staleness, "today"), so an answer is kept under the first three, dropped as soon as the rates
// change, and never kept longer than the TTL. Keys, quotas, usage and request ids stay per request.

export interface CachedAnswer {
  status: number;
  body: string;
  etag: string;
  /** headers that come from the answer itself (Cache-Control, the stale headers) */
  headers: Readonly<Record<string, string>>;
}

const MAX_ENTRIES = 4_096;

export class ResponseCache {
  private readonly entries = new Map<string, { answer: CachedAnswer; generation: number; expires: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly clock: () => Date,
    /** the stored rates' generation (RateHistoryStore.generation) */
    private readonly generation: () => number,
  ) {}

  get(key: string): CachedAnswer | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.generation === this.generation() && this.clock().getTime() < entry.expires) return entry.answer;
    this.entries.delete(key);
    return undefined;
  }

  /** `generation` is the one read before the answer was computed: a change meanwhile makes it stale at once. */
  set(key: string, answer: CachedAnswer, generation: number): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(key, { answer, generation, expires: this.clock().getTime() + this.ttlMs });
  }
}
