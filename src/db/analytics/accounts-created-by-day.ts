import { sql, type Kysely } from 'kysely';
import type { Database } from '../database.js';

export interface AccountsCreatedOnDay {
  day: string;
  accounts: number;
}

/** Accounts created per Sydney day of an inclusive range, days with none left out. */
export async function accountsCreatedByDay(db: Kysely<Database>, from: string, to: string): Promise<AccountsCreatedOnDay[]> {
  const { rows } = await sql<AccountsCreatedOnDay>`
    SELECT (created_at AT TIME ZONE 'Australia/Sydney')::date AS day, count(*)::int AS accounts
    FROM accounts
    WHERE (created_at AT TIME ZONE 'Australia/Sydney')::date BETWEEN ${from} AND ${to}
    GROUP BY 1 ORDER BY 1`.execute(db);
  return rows;
}
