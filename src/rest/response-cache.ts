// Answers of read-only data routes, shared by identical requests for a second. A response depends
// only on the route, the query, the viewer's plan (its windows), the stored rates and the time
// (staleness, "today"), so an answer is kept under the first three, dropped as soon as the rates
// change, and never kept longer than the TTL. Keys, quotas, usage and request ids stay per request.
import { LRUCache } from 'lru-cache';
import type { NotFoundError } from '../errors.js';
import type { Answer } from './exchange.js';

/** an answer, or the refusal that says the data holds none for the request */
export type SharedAnswer = Answer | NotFoundError;

/** the most answers kept at once; the least recently used goes first */
const MAX_ANSWERS = 4_096;

export class ResponseCache {
  private readonly answers: LRUCache<string, { answer: SharedAnswer; generation: number }>;

  constructor(
    ttlMs: number,
    clock: () => Date,
    /** the stored rates' generation (RateHistoryStore.generation) */
    private readonly generation: () => number,
  ) {
    // The service's clock, not the machine's, decides when an answer is too old (tests move it).
    // lru-cache still serves an entry exactly `ttl` old; an answer must be younger than `ttlMs`.
    this.answers = new LRUCache({ max: MAX_ANSWERS, ttl: ttlMs - 1, ttlResolution: 0, perf: { now: () => clock().getTime() } });
  }

  get(key: string): SharedAnswer | undefined {
    const entry = this.answers.get(key);
    if (!entry) return undefined;
    if (entry.generation === this.generation()) return entry.answer;
    this.answers.delete(key);
    return undefined;
  }

  /** `generation` is the one read before the answer was computed: a change meanwhile makes it stale at once. */
  set(key: string, answer: SharedAnswer, generation: number): void {
    this.answers.set(key, { answer, generation });
  }
}
