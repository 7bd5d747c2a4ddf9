// What every analytics query shares: operator only, a bounded date range in Sydney dates, a page
// size limit that refuses rather than silently shortening a page, and a statement timeout.
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/database.js';
import { withStatementTimeout } from '../db/statement-timeout.js';
import { daysBetween } from '../domain/calendar.js';
import { BadRequestError } from '../errors.js';
import type { Context } from './context.js';

export const MAX_PAGE_SIZE = 500;
export const DEFAULT_PAGE_SIZE = 100;
/** one statement of an analytics query may run this long before the database cancels it */
export const ANALYTICS_STATEMENT_TIMEOUT_MS = 5_000;
const MAX_RANGE_DAYS = 3 * 366;

export interface PageArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
}

/** What this service's cursors look like (base64 of an offset); anything else is refused. */
const CURSOR = /^[A-Za-z0-9+/]{1,64}={0,2}$/;

/** Page sizes within the limit and cursors of this service's own shape. */
export function checkPage(args: PageArgs): void {
  for (const name of ['after', 'before'] as const) {
    const cursor = args[name];
    if (cursor != null && !CURSOR.test(cursor)) throw new BadRequestError(`${name} is not a cursor this service gave out`);
  }
  for (const name of ['first', 'last'] as const) {
    const size = args[name];
    if (size != null && (size < 0 || size > MAX_PAGE_SIZE)) {
      throw new BadRequestError(`${name} must be between 0 and ${MAX_PAGE_SIZE} (got ${size}); page on with the cursor`);
    }
  }
}

/** An inclusive range of Sydney dates, `from` not after `to`, at most about three years. */
export function checkRange(from: string, to: string): void {
  if (to < from) throw new BadRequestError(`to (${to}) must not be before from (${from})`);
  if (daysBetween(from, to) >= MAX_RANGE_DAYS) throw new BadRequestError(`A range may span at most ${MAX_RANGE_DAYS} days`);
}

/** Runs an analytics read under the statement timeout (the fields and types that read are the operator's: `authScopes`). */
export function analyticsRead<T>(ctx: Context, work: (trx: Transaction<Database> | Kysely<Database>) => Promise<T>): Promise<T> {
  return withStatementTimeout(ctx.services.db, ANALYTICS_STATEMENT_TIMEOUT_MS, work);
}
