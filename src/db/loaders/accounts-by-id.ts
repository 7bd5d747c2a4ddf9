import type { Kysely } from 'kysely';
import type { Account, Database } from '../database.js';

/** The accounts with these ids, in no order; an unknown id has none. */
export async function accountsById(db: Kysely<Database>, ids: readonly string[]): Promise<Account[]> {
  return db
    .selectFrom('accounts')
    .selectAll()
    .where((eb) => eb('id', '=', eb.fn.any(eb.val(ids))))
    .execute();
}
