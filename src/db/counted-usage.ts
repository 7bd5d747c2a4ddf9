import type { Kysely } from 'kysely';
import type { Database } from './database.js';

/** An endpoint's counted requests: the account's, and those of one of its keys. */
export interface CountedRequests {
  /** the recorded name: a route's operation name, or `mcp:<tool>` */
  endpoint: string;
  requests: number;
  keyRequests: number;
}

/**
 * One account's answered requests the quota counts (2xx and 304, D17 in docs/decisions.md) over an
 * inclusive range of Sydney dates, by endpoint, with those of `keyId` among them. Which endpoints
 * are metered at all is the facade's to say.
 */
export async function countedRequests(db: Kysely<Database>, accountId: string, keyId: string, from: string, to: string): Promise<CountedRequests[]> {
  const rows = await db
    .selectFrom('usage_daily')
    .select('endpoint')
    .select((eb) => [
      eb.fn.sum<string | number>('requests').as('requests'),
      eb.fn.sum<string | number>(eb.case().when('key_id', '=', keyId).then(eb.ref('requests')).else(0).end()).as('key_requests'),
    ])
    .where('account_id', '=', accountId)
    .where('day', '>=', from)
    .where('day', '<=', to)
    .where((eb) => eb.or([eb.between('status', 200, 299), eb('status', '=', 304)]))
    .groupBy('endpoint')
    .orderBy('endpoint')
    .execute();
  return rows.map((row) => ({ endpoint: row.endpoint, requests: Number(row.requests), keyRequests: Number(row.key_requests) }));
}
