// The rate history the bench serves: every business day from 2018 to LAST_DATE, all 20 published
// codes, generated as the RBA's own F11.1 CSV (the header block of the real file, then one row a
// day at the precision the RBA publishes) and read by the service's own parser. A few values are
// left blank, as in the real file. BENCH_RATES_FILE=<path> serves a real RBA file instead (CSV or
// .xls; not part of the repository).
import { readFileSync } from 'node:fs';
import { DateTime } from 'luxon';
import { addDays, isBusinessDay, publicationSlot } from '../src/domain/calendar.js';
import { PUBLISHED_CODES, type PublishedCode } from '../src/domain/currencies.js';
import { parseRbaCsv, parseRbaFile, type RbaTable } from '../src/rba/index.js';
import { seededRandom } from '../test/support/random.js';

const GENERATED_FIRST_DATE = '2018-01-01';
const GENERATED_LAST_DATE = '2026-11-20';
/** the real file whose header block (titles, units, series ids) the generated file reuses */
const LAYOUT = new URL('../test/fixtures/rba/f11.1-data.csv', import.meta.url);

/** A typical level and the decimal places the RBA publishes for each code. */
const LEVELS: Record<PublishedCode, { level: number; dp: number }> = {
  USD: { level: 0.65, dp: 4 },
  EUR: { level: 0.575, dp: 4 },
  GBP: { level: 0.49, dp: 4 },
  JPY: { level: 97.5, dp: 2 },
  CNY: { level: 4.68, dp: 4 },
  KRW: { level: 905, dp: 2 },
  INR: { level: 56.2, dp: 2 },
  SGD: { level: 0.84, dp: 4 },
  NZD: { level: 1.1, dp: 4 },
  THB: { level: 21.4, dp: 2 },
  MYR: { level: 2.78, dp: 4 },
  IDR: { level: 10650, dp: 0 },
  VND: { level: 17050, dp: 0 },
  HKD: { level: 5.06, dp: 4 },
  PHP: { level: 37.4, dp: 2 },
  CAD: { level: 0.9, dp: 4 },
  CHF: { level: 0.525, dp: 4 },
  TWD: { level: 20.3, dp: 2 },
  TWI: { level: 60.5, dp: 2 },
  SDR: { level: 0.48, dp: 4 },
};
const BLANK_SHARE = 0.002; // about one value in 500 not published that day

/** The generated F11.1 CSV: the real header block, then one row per business day. */
export function generatedF11Csv(first = GENERATED_FIRST_DATE, last = GENERATED_LAST_DATE): string {
  const lines = readFileSync(LAYOUT, 'utf8').split(/\r?\n/);
  const header = lines.slice(0, lines.findIndex((line) => line.startsWith('Series ID')) + 1);
  const units = lines
    .find((line) => line.startsWith('Units,'))!
    .split(',')
    .slice(1);
  const random = seededRandom(11);
  const walk = new Map(PUBLISHED_CODES.map((code) => [code, 0]));
  const rows: string[] = [];
  for (let date = first; date <= last; date = addDays(date, 1)) {
    if (!isBusinessDay(date)) continue;
    const cells = units.map((unit) => {
      const code = (unit === 'Index' ? 'TWI' : unit) as PublishedCode;
      if (!(code in LEVELS)) return ''; // series the RBA no longer publishes (AED, PGK, ZAR)
      // a bounded random walk: within about ±15% of the level, daily moves of a few tenths of a percent
      const drift = walk.get(code)! * 0.98 + (random() - 0.5) * 0.012;
      walk.set(code, drift);
      if (random() < BLANK_SHARE) return '';
      return (LEVELS[code].level * (1 + drift)).toFixed(LEVELS[code].dp);
    });
    rows.push([DateTime.fromISO(date).toFormat('dd-LLL-yyyy'), ...cells].join(','));
  }
  return `${[...header, ...rows].join('\n')}\n`;
}

function loadHistory(): { table: RbaTable; source: string } {
  const file = process.env.BENCH_RATES_FILE;
  if (file) return { table: parseRbaFile(readFileSync(file), file), source: file };
  return { table: parseRbaCsv(generatedF11Csv()), source: `generated F11.1 CSV, ${GENERATED_FIRST_DATE}..${GENERATED_LAST_DATE}` };
}

export const HISTORY = loadHistory();
/** Days from 2018 on (what the service stores). */
export const HISTORY_DAYS = HISTORY.table.days.filter((day) => day.date >= '2018-01-01');
export const FIRST_DATE = HISTORY_DAYS[0]!.date;
export const LAST_DATE = HISTORY_DAYS.at(-1)!.date;
/** The injected clock: 30 minutes after LAST_DATE's 16:00 Sydney publication, so the data is fresh. */
export const NOW = new Date(publicationSlot(LAST_DATE).getTime() + 30 * 60_000);

export interface FixtureDay {
  date: string;
  rates: { code: string; value: string }[];
}

export function fixtureDays(): FixtureDay[] {
  return HISTORY_DAYS.map((day) => ({ date: day.date, rates: Object.entries(day.rates).map(([code, value]) => ({ code, value })) }));
}
