// Quotas and rate limits, applied after a request is known to succeed (D11 in docs/decisions.md:
// 429 comes last), so a request that fails validation, authentication or finds no data never takes
// a unit.
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { ApiKeyViewer } from '../schema/context.js';
import { FreeConvertLimit } from './free-convert-limit.js';
import { MonthlyQuota, type MonthlyQuotaOptions } from './monthly-quota.js';
import type { Route } from './route.js';

export class RequestLimits {
  readonly monthly: MonthlyQuota;
  private readonly freeConvert: FreeConvertLimit;

  constructor(db: Kysely<Database>, clock: () => Date, quota: MonthlyQuotaOptions) {
    this.monthly = new MonthlyQuota(db, clock, quota);
    this.freeConvert = new FreeConvertLimit(db, clock);
  }

  /** The rate-limit headers for a request about to succeed; throws 429 when none is left. */
  async admit(route: Pick<Route, 'auth'>, viewer: ApiKeyViewer | null, client: string): Promise<Record<string, string>> {
    // `/`, /status and /symbols are unlimited (docs/api.md §8 rule 3); managing webhooks is not a
    // data request
    if (route.auth === 'none' || route.auth === 'account') return {};
    if (viewer) return this.monthly.take(viewer);
    return this.freeConvert.take(client);
  }

  /** The quota's headers for a keyed request refused before it took a unit (docs/api.md §8: every keyed answer carries them). */
  standing(route: Pick<Route, 'auth'>, viewer: ApiKeyViewer): Promise<Record<string, string>> {
    if (route.auth === 'none' || route.auth === 'account') return Promise.resolve({});
    return this.monthly.standing(viewer);
  }
}
