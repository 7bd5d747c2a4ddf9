import type { Kysely } from 'kysely';
import type { Account, Database } from '../database.js';

/** The accounts with these e-mail addresses (lower-case, as stored), in no order. */
export async function accountsByEmail(db: Kysely<Database>, emails: readonly string[]): Promise<Account[]> {
  return db
    .selectFrom('accounts')
    .selectAll()
    .where((eb) => eb('email', '=', eb.fn.any(eb.val(emails))))
    .execute();
}
