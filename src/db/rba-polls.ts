import type { Insertable, Kysely } from 'kysely';
import type { Database, RbaPollsTable } from './database.js';

/** Records one poll of the RBA. */
export async function recordPoll(db: Kysely<Database>, poll: Insertable<RbaPollsTable>): Promise<void> {
  await db.insertInto('rba_polls').values(poll).execute();
}

/** Deletes up to `limit` polls made before `before`; resolves with how many went. */
export async function prunePolls(db: Kysely<Database>, before: Date, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('rba_polls')
    .where('id', 'in', (eb) => eb.selectFrom('rba_polls').select('id').where('polled_at', '<', before).orderBy('polled_at').limit(limit))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
