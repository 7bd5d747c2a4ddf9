// Repository for rates and the publications they came from. Plain functions taking `db` or `trx`.
import { Dec } from '../domain/decimal.js';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from './database.js';

/** code → exact decimal text, e.g. { USD: '0.6828', TWI: '61.40' } */
export type RateValues = Record<string, string>;

export interface StoredDay {
  date: string;
  rates: RateValues;
}

export async function findDays(db: Kysely<Database>, dates: readonly string[]): Promise<Map<string, RateValues>> {
  const days = new Map<string, RateValues>();
  if (dates.length === 0) return days;
  const rows = await db
    .selectFrom('rates')
    .select(['date', 'code', 'value'])
    .where('date', 'in', dates as string[])
    .execute();
  for (const row of rows) {
    let rates = days.get(row.date);
    if (!rates) days.set(row.date, (rates = {}));
    rates[row.code] = row.value;
  }
  return days;
}

export interface Freshness {
  /** newest stored rate date, null when nothing is stored */
  newestDate: string | null;
  /** newest date on which each code has a rate */
  newestByCode: Map<string, string>;
  /** when rates were last stored (inserted or corrected) */
  lastStoredAt: Date | null;
}

export async function findFreshness(db: Kysely<Database>): Promise<Freshness> {
  const [byCode, stored] = await Promise.all([
    db.selectFrom('rates').select(['code', (eb) => eb.fn.max('date').as('newest')]).groupBy('code').execute(),
    db.selectFrom('publications').select((eb) => eb.fn.max('stored_at').as('last')).executeTakeFirst(),
  ]);
  const newestByCode = new Map(byCode.map((r) => [r.code, r.newest]));
  let newestDate: string | null = null;
  for (const date of newestByCode.values()) if (newestDate === null || date > newestDate) newestDate = date;
  return { newestDate, newestByCode, lastStoredAt: (stored?.last as Date | null | undefined) ?? null };
}

/** The newest stored rate date, null when nothing is stored. */
export async function findNewestDate(db: Kysely<Database>): Promise<string | null> {
  const row = await db.selectFrom('rates').select((eb) => eb.fn.max('date').as('newest')).executeTakeFirst();
  return (row?.newest as string | null | undefined) ?? null;
}

/** Newest date on or before `onOrBefore` on which every one of `codes` has a rate. */
export async function findNewestDateWith(
  db: Kysely<Database>,
  codes: readonly string[],
  onOrBefore: string,
): Promise<string | null> {
  let query = db.selectFrom('rates').select('date').where('date', '<=', onOrBefore);
  if (codes.length > 0) {
    query = query
      .where('code', 'in', codes as string[])
      .groupBy('date')
      .having((eb) => eb.fn.count('code'), '=', codes.length);
  }
  const row = await query.orderBy('date', 'desc').limit(1).executeTakeFirst();
  return row?.date ?? null;
}

export interface ImportInput {
  /** when the import runs (the service's clock) */
  storedAt: Date;
  source: string;
  format: 'csv' | 'xls' | 'rss';
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

const INSERT_CHUNK = 4000; // rows per INSERT, well under Postgres's 65,535 bind parameters

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
  const existingRows = await trx
    .selectFrom('rates')
    .select(['date', 'code', 'value'])
    .where('date', '>=', first)
    .where('date', '<=', last)
    .execute();
  const existing = new Map<string, string>();
  const existingDates = new Set<string>();
  for (const row of existingRows) {
    existing.set(`${row.date} ${row.code}`, row.value);
    existingDates.add(row.date);
  }

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
    const chunk = inserts.slice(i, i + INSERT_CHUNK).map((r) => ({ ...r, publication_id: publicationId }));
    await trx.insertInto('rates').values(chunk).execute();
  }
  for (const c of corrections) {
    await trx
      .updateTable('rates')
      .set({ value: c.value, publication_id: publicationId })
      .where('date', '=', c.date)
      .where('code', '=', c.code)
      .execute();
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
