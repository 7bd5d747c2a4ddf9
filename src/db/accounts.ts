import type { Kysely } from 'kysely';
import { billingDayOf } from '../domain/billing.js';
import type { Plan } from '../domain/plans.js';
import type { Account, AccountStatus, Database } from './database.js';

/** A new account, signed up at `signedUpAt` (the service's clock), which also gives its billing day; null when the e-mail is taken. */
export async function insertAccount(db: Kysely<Database>, account: { email: string; plan: Plan; signedUpAt: Date }): Promise<Account | null> {
  const { email, plan, signedUpAt } = account;
  const row = await db
    .insertInto('accounts')
    .values({ email: email.toLowerCase(), plan, created_at: signedUpAt, billing_day: billingDayOf(signedUpAt) })
    .onConflict((oc) => oc.column('email').doNothing())
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}

export async function findAccountByEmail(db: Kysely<Database>, email: string): Promise<Account | null> {
  const row = await db.selectFrom('accounts').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst();
  return row ?? null;
}

export async function updateAccount(db: Kysely<Database>, email: string, changes: { plan?: Plan; status?: AccountStatus }): Promise<Account | null> {
  const row = await db
    .updateTable('accounts')
    .set((eb) => ({
      ...changes,
      // D35 (docs/decisions.md): leaving Free for a paid plan starts that plan's first monthly
      // period at 0; between paid plans the period's count carries over, and Free's own count is
      // never touched here.
      ...(changes.plan !== undefined &&
        changes.plan !== 'free' && {
          quota_used: eb.case().when('plan', '=', 'free').then(0).else(eb.ref('quota_used')).end(),
        }),
    }))
    .where('email', '=', email.toLowerCase())
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}

/** Locks the account row for the rest of the transaction, so per-account rules see a stable count. */
export async function lockAccount(trx: Kysely<Database>, accountId: string): Promise<void> {
  await trx.selectFrom('accounts').select('id').where('id', '=', accountId).forUpdate().execute();
}

export async function findAccountById(db: Kysely<Database>, id: string): Promise<Account | null> {
  const row = await db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
  return row ?? null;
}
