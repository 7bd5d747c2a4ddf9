import Holidays from 'date-holidays';
import { DateTime } from 'luxon';

// The RBA publishes its daily F11.1 exchange rates at about 16:00 Sydney time on
// business days. Calendar dates are plain ISO 'YYYY-MM-DD' strings so that they
// never pick up the time zone of the machine this runs on; all date arithmetic
// below is done in UTC days for the same reason.

export const SYDNEY = 'Australia/Sydney';

/** History starts on the first business day of 2018 (docs/api.md §1); nothing earlier is ever stored or served. */
export const FIRST_DATE = '2018-01-01';
const PUBLICATION_HOUR = 16;
const MS_PER_DAY = 86_400_000;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

// Holiday types from date-holidays (AU/NSW) on which the RBA does not publish.
// 'public' covers the gazetted NSW public holidays, including the Monday/Tuesday
// substitutes for Christmas, Boxing Day, New Year and Australia Day. 'bank' is the
// NSW Bank Holiday (first Monday of August): not a general public holiday, but the
// RBA, being a bank, does not publish on it. 'observance' (Mother's/Father's Day)
// always falls on a Sunday and is not a day off; 'optional' and 'school' do not
// close banks (and date-holidays currently returns neither for AU/NSW).
// Checked against the RBA's own F11.1 file for 2023-01-03..2026-05-11: the weekdays
// missing from it are exactly the 'public' and 'bank' days.
const CLOSED_HOLIDAY_TYPES: ReadonlySet<string> = new Set(['public', 'bank']);

let holidays: Holidays | undefined;
const closedDatesByYear = new Map<number, ReadonlySet<string>>();

// Constructing Holidays and evaluating its rules is comparatively slow, and
// isBusinessDay sits on hot paths, so both are done once (per year) on demand.
function closedDatesOf(year: number): ReadonlySet<string> {
  let dates = closedDatesByYear.get(year);
  if (dates === undefined) {
    holidays ??= new Holidays('AU', 'NSW');
    const set = new Set<string>();
    for (const holiday of holidays.getHolidays(year)) {
      // holiday.date is local wall-clock 'YYYY-MM-DD HH:mm:ss' in the holiday's zone.
      if (CLOSED_HOLIDAY_TYPES.has(holiday.type)) set.add(holiday.date.slice(0, 10));
    }
    dates = set;
    closedDatesByYear.set(year, dates);
  }
  return dates;
}

// Returns the UTC epoch milliseconds of 00:00 UTC on `date`, or NaN if `date` is
// not a strict, real ISO calendar date.
function parseIsoDate(date: string): number {
  const match = ISO_DATE.exec(date);
  if (match === null) return Number.NaN;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  const d = new Date(0);
  // setUTCFullYear rather than Date.UTC: Date.UTC maps years 0..99 to 1900..1999.
  d.setUTCFullYear(year, month - 1, day);
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) {
    return Number.NaN;
  }
  return d.getTime();
}

function requireIsoDate(date: string): number {
  const ms = parseIsoDate(date);
  if (Number.isNaN(ms)) throw new RangeError(`Invalid ISO date: ${JSON.stringify(date)}`);
  return ms;
}

function formatIsoDate(ms: number): string {
  const d = new Date(ms);
  const year = d.getUTCFullYear();
  if (year < 0 || year > 9999) throw new RangeError(`Date out of 'YYYY-MM-DD' range: ${d.toISOString()}`);
  const mm = String(d.getUTCMonth() + 1).padStart(2, '0');
  const dd = String(d.getUTCDate()).padStart(2, '0');
  return `${String(year).padStart(4, '0')}-${mm}-${dd}`;
}

function requireValidInstant(now: Date): void {
  if (Number.isNaN(now.getTime())) throw new RangeError('Invalid Date');
}

// The date in Sydney is asked for several times by most requests (plan windows, "today"), and
// nearly always for the same day: the last day found is kept with the instants it spans, so an
// instant inside it is answered by two comparisons. Any other instant is worked out in full.
let lastDay: { date: string; from: number; until: number } | undefined;

export function sydneyDate(now: Date): string {
  requireValidInstant(now);
  const at = now.getTime();
  if (lastDay && at >= lastDay.from && at < lastDay.until) return lastDay.date;
  const day = DateTime.fromMillis(at, { zone: SYDNEY }).startOf('day');
  const date = day.toISODate();
  if (date === null) throw new RangeError(`Cannot express ${now.toISOString()} in ${SYDNEY}`);
  lastDay = { date, from: day.toMillis(), until: day.plus({ days: 1 }).toMillis() };
  return date;
}

export function isBusinessDay(date: string): boolean {
  const ms = requireIsoDate(date);
  const weekday = new Date(ms).getUTCDay();
  if (weekday === 0 || weekday === 6) return false;
  return !closedDatesOf(new Date(ms).getUTCFullYear()).has(date);
}

export function nextBusinessDay(date: string): string {
  let candidate = addDays(date, 1);
  while (!isBusinessDay(candidate)) candidate = addDays(candidate, 1);
  return candidate;
}

export function previousBusinessDay(date: string): string {
  let candidate = addDays(date, -1);
  while (!isBusinessDay(candidate)) candidate = addDays(candidate, -1);
  return candidate;
}

/** The newest business day whose 16:00 Sydney publication slot is at or before `now`. */
export function latestDueDate(now: Date): string {
  const today = sydneyDate(now);
  return isBusinessDay(today) && publicationSlot(today).getTime() <= now.getTime() ? today : previousBusinessDay(today);
}

export function publicationSlot(date: string): Date {
  const ms = requireIsoDate(date);
  const d = new Date(ms);
  // 16:00 is never inside a Sydney DST gap or overlap (those are at 02:00-03:00),
  // so the wall-clock time maps to exactly one instant.
  const slot = DateTime.fromObject(
    { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: PUBLICATION_HOUR },
    { zone: SYDNEY },
  );
  if (!slot.isValid) throw new RangeError(`Cannot build publication slot for ${date}: ${slot.invalidReason}`);
  return slot.toJSDate();
}

export function publicationDueAfter(date: string): Date {
  return publicationSlot(nextBusinessDay(date));
}

export function nextPublicationSlotAt(now: Date): Date {
  const today = sydneyDate(now);
  if (isBusinessDay(today)) {
    const slot = publicationSlot(today);
    if (slot.getTime() >= now.getTime()) return slot;
  }
  return publicationSlot(nextBusinessDay(today));
}

export function addDays(date: string, days: number): string {
  if (!Number.isInteger(days)) throw new RangeError(`days must be an integer, got ${days}`);
  return formatIsoDate(requireIsoDate(date) + days * MS_PER_DAY);
}

export function daysBetween(start: string, end: string): number {
  // Both are exact UTC midnights, so the difference is a whole number of days.
  return (requireIsoDate(end) - requireIsoDate(start)) / MS_PER_DAY;
}

export function isValidIsoDate(date: string): boolean {
  return !Number.isNaN(parseIsoDate(date));
}

export function unixTimestampOfDate(date: string): number {
  return requireIsoDate(date) / 1000;
}
