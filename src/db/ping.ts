import { sql, type Kysely } from 'kysely';
import type { Database } from './database.js';

/** Resolves once the store has answered a trivial statement: whether it answers at all. */
export async function pingStore(db: Kysely<Database>): Promise<void> {
  await sql`select 1`.execute(db);
}
