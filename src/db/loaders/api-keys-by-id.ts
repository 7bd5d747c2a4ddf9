import type { Kysely } from 'kysely';
import type { ApiKey, Database } from '../database.js';

/** The keys with these ids, in no order. */
export async function apiKeysById(db: Kysely<Database>, ids: readonly string[]): Promise<ApiKey[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where((eb) => eb('id', '=', eb.fn.any(eb.val(ids))))
    .execute();
}
