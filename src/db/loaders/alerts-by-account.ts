import type { Kysely } from 'kysely';
import { listed, type ListedAlert } from '../alerts.js';
import type { Database } from '../database.js';

/** The rate alerts of these accounts, each account's oldest first. */
export async function alertsByAccount(db: Kysely<Database>, accountIds: readonly string[]): Promise<(ListedAlert & { accountId: string })[]> {
  return listed(db)
    .select('alerts.account_id as accountId')
    .where((eb) => eb('alerts.account_id', '=', eb.fn.any(eb.val(accountIds))))
    .orderBy('alerts.created_at')
    .orderBy('alerts.id')
    .execute();
}
