// Repository for the history workbooks already stored (RBA_HISTORY_URLS): one row per source.
import type { Kysely } from 'kysely';
import type { Database } from './database.js';

export interface HistoryImport {
  source: string;
  days: number;
  firstDate: string;
  lastDate: string;
  importedAt: Date;
}

/** The sources stored successfully, of those given. */
export async function findImportedHistory(db: Kysely<Database>, sources: readonly string[]): Promise<Set<string>> {
  if (sources.length === 0) return new Set();
  const rows = await db.selectFrom('history_imports').select('source').where('source', 'in', sources).execute();
  return new Set(rows.map((r) => r.source));
}

/** Records a stored source; recording it again (two processes at once) keeps the first record. */
export async function recordHistoryImport(db: Kysely<Database>, done: HistoryImport): Promise<void> {
  await db
    .insertInto('history_imports')
    .values({ source: done.source, days: done.days, first_date: done.firstDate, last_date: done.lastDate, imported_at: done.importedAt })
    .onConflict((oc) => oc.column('source').doNothing())
    .execute();
}
