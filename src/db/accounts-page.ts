import type { Kysely } from 'kysely';
import type { Plan } from '../domain/plans.js';
import type { Account, AccountStatus, Database } from './database.js';

/** A page of the accounts, oldest first, only those on `plan` and in `status` when given. */
export async function accountsPage(
  db: Kysely<Database>,
  filter: { plan?: Plan | null; status?: AccountStatus | null },
  offset: number,
  limit: number,
): Promise<Account[]> {
  let query = db.selectFrom('accounts').selectAll();
  if (filter.plan) query = query.where('plan', '=', filter.plan);
  if (filter.status) query = query.where('status', '=', filter.status);
  return query.orderBy('created_at').orderBy('id').offset(offset).limit(limit).execute();
}
