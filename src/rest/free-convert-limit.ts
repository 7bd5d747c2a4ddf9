// Keyless /convert (docs/api.md §8 rules 2 and 5, D19 in docs/decisions.md): 3 requests per client
// per fixed 3600 s window.
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { countInWindow } from '../db/quota.js';
import { secondsUntil } from '../domain/calendar.js';
import { RateLimitedError } from '../http/http-errors.js';

export const FREE_CONVERT_LIMIT = 3;
export const FREE_CONVERT_WINDOW_SECONDS = 3600;

export class FreeConvertLimit {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: () => Date,
  ) {}

  async take(client: string): Promise<Record<string, string>> {
    const now = this.clock();
    const { windowStart, requests } = await countInWindow(this.db, client, now, FREE_CONVERT_WINDOW_SECONDS * 1000, FREE_CONVERT_LIMIT);
    const resetsAt = new Date(windowStart.getTime() + FREE_CONVERT_WINDOW_SECONDS * 1000);
    const headers: Record<string, string> = {
      'X-RateLimit-Limit': String(FREE_CONVERT_LIMIT),
      'X-RateLimit-Remaining': String(Math.max(0, FREE_CONVERT_LIMIT - requests)),
      'X-RateLimit-Reset': resetsAt.toISOString(),
    };
    if (requests > FREE_CONVERT_LIMIT) {
      const seconds = secondsUntil(resetsAt, now);
      throw new RateLimitedError(`Rate limit exceeded. Try again in ${seconds} seconds.`, { ...headers, 'Retry-After': String(seconds) });
    }
    return { ...headers, 'X-RateLimit-Window': String(FREE_CONVERT_WINDOW_SECONDS) };
  }
}
