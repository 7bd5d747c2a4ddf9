// Repository for rates and the publications they came from. Plain functions taking `db` or `trx`.
import { Dec } from '../domain/decimal.js';
import { RateHistory } from '../domain/rate-history.js';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from './database.js';
import type { SourceFormat } from '../domain/source-format.js';

/** code → exact decimal text, e.g. { USD: '0.6828', TWI: '61.40' } */
export type RateValues = Record<string, string>;

export interface StoredDay {
  date: string;
  rates: RateValues;
}

/**
 * Every stored value and when rates were last stored, read in one snapshot (so the two agree):
 * what a process holds in memory (RateHistory).
 */
export async function loadRateHistory(db: Kysely<Database>): Promise<RateHistory> {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      // One row per day ('USD=0.6828,TWI=61.40,…'): a twentieth of the rows, which the embedded
      // database hands over several times faster than one row per value.
      const { rows } = await sql<{ date: string; rates: string }>`
        select date, string_agg(code || '=' || value, ',') as rates from rates group by date`.execute(trx);
      const stored = await trx
        .selectFrom('publications')
        .select((eb) => eb.fn.max('stored_at').as('last'))
        .executeTakeFirst();
      // Embedded, the query runs on this thread and its promise settles without a turn of the loop:
      // a turn here lets requests and timers run before the history is built.
      await nextTurn();
      const days = rows.map(({ date, rates }) => ({
        date,
        rates: Object.fromEntries<string>(rates.split(',').map((pair) => pair.split('=') as [string, string])),
      }));
      return RateHistory.of(days, (stored?.last as Date | null | undefined) ?? null);
    });
}

/** The newest stored rate date, null when nothing is stored. */
export async function findNewestDate(db: Kysely<Database>): Promise<string | null> {
  const row = await db
    .selectFrom('rates')
    .select((eb) => eb.fn.max('date').as('newest'))
    .executeTakeFirst();
  return (row?.newest as string | null | undefined) ?? null;
}

export interface ImportInput {
  /** when the import runs (the service's clock) */
  storedAt: Date;
  source: string;
  format: SourceFormat;
  publicationDate: string | null;
  /** ascending, unique dates */
  days: readonly StoredDay[];
}

export interface ImportSummary {
  days: number;
  /** days that were not stored before */
  inserted: number;
  /** stored days that gained a value or had one corrected */
  updated: number;
  firstDate: string;
  lastDate: string;
  /** the publication recorded for this import; null when it changed nothing */
  publicationId: number | null;
  /**
   * The batch's newest day when it is newer than every day stored before: a publication, which
   * webhooks announce. A backfill or a correction publishes nothing.
   */
  publishedDay: StoredDay | null;
}

// Rows per INSERT: embedded, each INSERT runs on this thread, so a small one holds the event loop only briefly.
const INSERT_CHUNK = 100;

/**
 * Stores a batch of days in one transaction: new values are inserted, changed values replace the
 * old ones and are recorded in rate_corrections, identical values are left alone, so importing the
 * same file twice changes nothing. Values missing from the batch are kept (a blank cell is "not
 * published", never a deletion).
 */
export async function storeDays(trx: Transaction<Database>, input: ImportInput): Promise<ImportSummary> {
  const first = input.days[0]!.date;
  const last = input.days[input.days.length - 1]!.date;
  // Serialises concurrent imports so two of them cannot both insert the same new day.
  await sql`select pg_advisory_xact_lock(hashtext('rates.import'))`.execute(trx);
  const newestBefore = await findNewestDate(trx);
  const existingRows = await trx.selectFrom('rates').select(['date', 'code', 'value']).where('date', '>=', first).where('date', '<=', last).execute();
  const existing = new Map<string, string>();
  const existingDates = new Set<string>();
  for (const row of existingRows) {
    existing.set(`${row.date} ${row.code}`, row.value);
    existingDates.add(row.date);
  }

  // Embedded, the statements above ran on this thread without a turn of the loop; one here keeps
  // them apart from comparing the batch with what is stored.
  await nextTurn();
  const inserts: { date: string; code: string; value: string }[] = [];
  const corrections: { date: string; code: string; previous_value: string; value: string }[] = [];
  let inserted = 0;
  let updated = 0;
  for (const day of input.days) {
    let changed = false;
    for (const [code, value] of Object.entries(day.rates)) {
      const old = existing.get(`${day.date} ${code}`);
      if (old === undefined) {
        inserts.push({ date: day.date, code, value });
        changed = true;
      } else if (!new Dec(old).equals(value)) {
        corrections.push({ date: day.date, code, previous_value: old, value });
        changed = true;
      }
    }
    if (!changed) continue;
    if (existingDates.has(day.date)) updated++;
    else inserted++;
  }
  const summary = {
    days: input.days.length,
    inserted,
    updated,
    firstDate: first,
    lastDate: last,
  };
  if (inserts.length === 0 && corrections.length === 0) return { ...summary, publicationId: null, publishedDay: null };

  const { id: publicationId } = await trx
    .insertInto('publications')
    .values({
      source: input.source,
      format: input.format,
      rba_publication_date: input.publicationDate,
      first_date: first,
      last_date: last,
      days: input.days.length,
      inserted,
      updated,
      stored_at: input.storedAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (let i = 0; i < inserts.length; i += INSERT_CHUNK) {
    // Embedded statements settle without a turn of the loop: yield one between them so an import
    // of years of rates never holds requests and timers back for long.
    await nextTurn();
    const chunk = inserts.slice(i, i + INSERT_CHUNK).map((r) => ({ ...r, publication_id: publicationId }));
    await trx.insertInto('rates').values(chunk).execute();
  }
  for (const c of corrections) {
    await trx.updateTable('rates').set({ value: c.value, publication_id: publicationId }).where('date', '=', c.date).where('code', '=', c.code).execute();
  }
  if (corrections.length > 0) {
    await trx
      .insertInto('rate_corrections')
      .values(corrections.map((c) => ({ ...c, publication_id: publicationId })))
      .execute();
  }
  const newest = input.days[input.days.length - 1]!;
  const published = newestBefore === null || newest.date > newestBefore ? newest : null;
  return { ...summary, publicationId, publishedDay: published };
}
