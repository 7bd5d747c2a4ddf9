// Sign-in links and dashboard sessions (D31). Tokens arrive here already hashed: nothing in the
// database could sign anyone in.
import type { Kysely } from 'kysely';
import type { Account, Database } from './database.js';

/** How many links were asked for since `since` by an address or a client, and when the oldest of them was. */
export async function recentLinks(
  db: Kysely<Database>,
  by: { email: string } | { client: string },
  since: Date,
): Promise<{ count: number; oldest: Date | null }> {
  const row = await db
    .selectFrom('sign_in_links')
    .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.min('created_at').as('oldest')])
    .where('created_at', '>', since)
    .$if('email' in by, (qb) => qb.where('email', '=', 'email' in by ? by.email : ''))
    .$if('client' in by, (qb) => qb.where('client', '=', 'client' in by ? by.client : ''))
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), oldest: row.oldest === null ? null : new Date(row.oldest) };
}

export async function insertSignInLink(
  db: Kysely<Database>,
  link: { tokenHash: string; email: string; client: string; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await db
    .insertInto('sign_in_links')
    .values({ token_hash: link.tokenHash, email: link.email, client: link.client, created_at: link.createdAt, expires_at: link.expiresAt })
    .execute();
}

/** Marks an unused, unexpired link used, in one statement (two tabs racing get one session); its e-mail, or null. */
export async function consumeSignInLink(db: Kysely<Database>, tokenHash: string, now: Date): Promise<string | null> {
  const row = await db
    .updateTable('sign_in_links')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('email')
    .executeTakeFirst();
  return row?.email ?? null;
}

export async function insertSession(db: Kysely<Database>, session: { tokenHash: string; accountId: string; now: Date }): Promise<void> {
  await db
    .insertInto('dashboard_sessions')
    .values({ token_hash: session.tokenHash, account_id: session.accountId, created_at: session.now, last_seen_at: session.now })
    .execute();
}

export interface SessionHolder {
  createdAt: Date;
  lastSeenAt: Date;
  account: Account;
}

export async function findSession(db: Kysely<Database>, tokenHash: string): Promise<SessionHolder | null> {
  const row = await db
    .selectFrom('dashboard_sessions')
    .innerJoin('accounts', 'accounts.id', 'dashboard_sessions.account_id')
    .selectAll('accounts')
    .select(['dashboard_sessions.created_at as session_created_at', 'dashboard_sessions.last_seen_at as session_last_seen_at'])
    .where('dashboard_sessions.token_hash', '=', tokenHash)
    .executeTakeFirst();
  if (!row) return null;
  const { session_created_at, session_last_seen_at, ...account } = row;
  return { createdAt: new Date(session_created_at), lastSeenAt: new Date(session_last_seen_at), account };
}

export async function touchSession(db: Kysely<Database>, tokenHash: string, now: Date): Promise<void> {
  await db.updateTable('dashboard_sessions').set({ last_seen_at: now }).where('token_hash', '=', tokenHash).execute();
}

export async function deleteSession(db: Kysely<Database>, tokenHash: string): Promise<void> {
  await db.deleteFrom('dashboard_sessions').where('token_hash', '=', tokenHash).execute();
}
