import { sql, type Kysely } from 'kysely';
import type { Database } from '../database.js';

export interface StoredDay {
  date: string;
  /** when the earliest of its values still held was stored */
  stored_at: Date;
  source: string;
  format: string;
  codes: number;
  corrections: number;
}

/** A page of the stored rate days of an inclusive range, newest first: when and from what each was stored. */
export async function publicationDays(db: Kysely<Database>, from: string, to: string, offset: number, limit: number): Promise<StoredDay[]> {
  const { rows } = await sql<StoredDay>`
    SELECT r.date, min(p.stored_at) AS stored_at, count(*)::int AS codes,
      (array_agg(p.source ORDER BY p.stored_at, p.id))[1] AS source,
      (array_agg(p.format ORDER BY p.stored_at, p.id))[1] AS format,
      (SELECT count(*)::int FROM rate_corrections c WHERE c.date = r.date) AS corrections
    FROM rates r JOIN publications p ON p.id = r.publication_id
    WHERE r.date BETWEEN ${from} AND ${to}
    GROUP BY r.date ORDER BY r.date DESC
    LIMIT ${limit} OFFSET ${offset}`.execute(db);
  return rows;
}
