import { sql, type Kysely } from 'kysely';
import type { Database } from '../database.js';

/** The codes stored for each rate day of an inclusive range (days with none absent). */
export async function storedCodesByDate(db: Kysely<Database>, from: string, to: string): Promise<Map<string, Set<string>>> {
  const { rows } = await sql<{ date: string; codes: string[] }>`
    SELECT date, array_agg(code) AS codes FROM rates WHERE date BETWEEN ${from} AND ${to} GROUP BY date`.execute(db);
  return new Map(rows.map((r) => [r.date, new Set(r.codes)]));
}
