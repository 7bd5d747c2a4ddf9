import type { Kysely } from 'kysely';
import type { ApiKey, Database } from '../database.js';

export interface ListedApiKey extends ApiKey {
  /** the newest day with a recorded request, 'YYYY-MM-DD', or null */
  last_used_day: string | null;
}

/** The keys of these accounts, each account's newest first, with the last day each was used. */
export async function keysByAccount(db: Kysely<Database>, accountIds: readonly string[]): Promise<ListedApiKey[]> {
  const rows = await db
    .selectFrom('api_keys')
    .selectAll('api_keys')
    .select((eb) =>
      eb
        .selectFrom('usage_daily')
        .whereRef('usage_daily.key_id', '=', 'api_keys.id')
        .select((u) => u.fn.max('usage_daily.day').as('d'))
        .as('last_used_day'),
    )
    .where((eb) => eb('api_keys.account_id', '=', eb.fn.any(eb.val(accountIds))))
    .orderBy('api_keys.created_at', 'desc')
    .execute();
  return rows.map((r) => ({ ...r, last_used_day: r.last_used_day === null ? null : String(r.last_used_day) }));
}
