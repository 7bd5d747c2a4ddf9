// A bound on how long one read may hold a database connection: analytics over months of usage must
// not queue the public API's statements behind a careless query.
import type { Kysely, Transaction } from 'kysely';
import { sql } from 'kysely';
import { QueryTimeoutError } from '../errors.js';
import type { Database } from './database.js';

const QUERY_CANCELED = '57014';

/** The driver's SQLSTATE of a failed statement (the store's own wrapper keeps it as the cause). */
const sqlState = (error: unknown) => (error instanceof Error && 'code' in error ? error.code : undefined);

/**
 * Runs `work` in a transaction whose statements are each cancelled by the server after `ms`
 * (SET LOCAL ends with the transaction, so the pooled connection goes back unchanged).
 */
export async function withStatementTimeout<T>(db: Kysely<Database>, ms: number, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  try {
    return await db.transaction().execute(async (trx) => {
      await sql`SELECT set_config('statement_timeout', ${String(Math.max(1, Math.round(ms)))}, true)`.execute(trx);
      return work(trx);
    });
  } catch (error) {
    if (sqlState(error) === QUERY_CANCELED || (error instanceof Error && sqlState(error.cause) === QUERY_CANCELED)) {
      throw new QueryTimeoutError(`The query ran past its ${ms} ms limit and was cancelled; ask for a shorter range or a smaller page`);
    }
    throw error;
  }
}
