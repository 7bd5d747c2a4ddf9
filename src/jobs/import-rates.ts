// Storing rates, whoever brings them (the scheduler, `sync`, `import`): one transaction stores the
// days and, when they bring a day newer than any stored, records that publication's webhook
// deliveries (D29 in docs/decisions.md) and the rate alerts it fires, with their e-mails and
// deliveries. After commit every process's caches hear of it.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { storeDays, type ImportSummary, type StoredDay } from '../db/rates.js';
import { recordAlertFirings } from '../db/alerts.js';
import { recordPublicationDeliveries } from '../db/webhook-deliveries.js';
import { FIRST_DATE, sydneyDate } from '../domain/calendar.js';
import { canonicalRates, isPublishedCode, type PublishedCode } from '../domain/currencies.js';
import { PLANS_WITH_ALERTS, PLANS_WITH_WEBHOOKS } from '../domain/plans.js';
import type { SourceFormat } from '../domain/source-format.js';
import { BadRequestError } from '../errors.js';
import type { RbaTable } from '../rba/index.js';
import type { Services } from '../services.js';
import { alertPayload, deliveryPayload } from '../webhooks/payload.js';

export interface RatesBatch {
  /** where the data came from (path, URL or feed), for the record */
  source: string;
  format: SourceFormat;
  publicationDate: string | null;
  days: readonly { date: string; rates: readonly { code: string; value: string }[] }[];
}

export interface ImportOutcome extends ImportSummary {
  /** deliveries recorded for the publication (0 when nothing was published) */
  deliveries: number;
  /** rate alerts the publication fired */
  alertsFired: number;
}

/** A batch parsed from an RBA file: its codes are the published ones, as the import operation's input takes them. */
export interface RbaBatch extends RatesBatch {
  days: { date: string; rates: { code: PublishedCode; value: string }[] }[];
}

/** A parsed RBA file as a batch to store. */
export function batchOf(source: string, table: RbaTable): RbaBatch {
  return {
    source,
    format: table.format,
    publicationDate: table.publicationDate,
    days: table.days.map((day) => ({
      date: day.date,
      rates: Object.entries(day.rates).flatMap(([code, value]) => (isPublishedCode(code) && value !== undefined ? [{ code, value }] : [])),
    })),
  };
}

/** Checks a batch as a whole before anything is stored: one bad day refuses all of it. */
function validDays(batch: RatesBatch, today: string): StoredDay[] {
  const days: StoredDay[] = [];
  let previous = '';
  for (const day of batch.days) {
    if (day.date <= previous) throw new BadRequestError(`Days must be in ascending date order without repeats (at ${day.date})`);
    previous = day.date;
    if (day.date > today) throw new BadRequestError(`${day.date} is in the future`);
    const rates: Record<string, string> = {};
    for (const { code, value } of day.rates) {
      if (code === 'AUD') throw new BadRequestError(`${day.date}: AUD is the base currency and has no rate of its own`);
      if (rates[code] !== undefined) throw new BadRequestError(`${day.date}: ${code} appears twice`);
      rates[code] = value;
    }
    // History starts in 2018 (docs/api.md §1); older rows in a workbook are skipped, not refused.
    if (day.date >= FIRST_DATE && day.rates.length > 0) days.push({ date: day.date, rates });
  }
  if (days.length === 0) throw new BadRequestError(`The batch holds no rates dated ${FIRST_DATE} or later`);
  return days;
}

export interface ImportOptions {
  /**
   * false for history (RBA_HISTORY_URLS): its days are old whatever is stored, so even on an empty
   * store its newest day is no publication and sends no webhooks
   */
  publishes?: boolean;
}

export async function importRates(services: Services, batch: RatesBatch, options: ImportOptions = {}): Promise<ImportOutcome> {
  const now = services.clock();
  const publishes = options.publishes ?? true;
  const days = validDays(batch, sydneyDate(now));
  // Checking years of days is synchronous: a turn of the loop keeps it apart from the parse before and the store after.
  await nextTurn();
  const outcome = await services.db.transaction().execute(async (trx) => {
    const summary = await storeDays(trx, {
      storedAt: now,
      source: batch.source,
      format: batch.format,
      publicationDate: batch.publicationDate,
      days,
    });
    const published = publishes && summary.publishedDay && { date: summary.publishedDay.date, rates: canonicalRates(summary.publishedDay.rates) };
    const deliveries =
      published && summary.publicationId !== null
        ? await recordPublicationDeliveries(
            trx,
            { publicationId: summary.publicationId, date: published.date, recordedAt: now },
            PLANS_WITH_WEBHOOKS,
            (id, currencies) => deliveryPayload('rates.published', id, published, currencies),
          )
        : 0;
    const fired =
      published && summary.publicationId !== null
        ? await recordAlertFirings(
            trx,
            { publicationId: summary.publicationId, date: published.date, rates: published.rates, recordedAt: now },
            { alerts: PLANS_WITH_ALERTS, webhooks: PLANS_WITH_WEBHOOKS },
            (id, firing) => alertPayload('rates.alert', id, firing),
          )
        : [];
    return { ...summary, publishedDay: publishes ? summary.publishedDay : null, deliveries, fired };
  });
  for (const firing of outcome.fired) services.metrics.alertFired(firing.condition);
  if (outcome.publicationId !== null) await services.changes.publish('rates_changed');
  const { fired, ...stored } = outcome;
  return { ...stored, alertsFired: fired.length };
}
