import Holidays from 'date-holidays';
import { LRUCache } from 'lru-cache';
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

// Holiday types from date-holidays (AU/NSW) on which the RBA does not publish.
// 'public' covers the gazetted NSW public holidays, including the Monday/Tuesday
// substitutes for Christmas, Boxing Day, New Year and Australia Day. 'bank' is the
// NSW Bank Holiday (first Monday of August): not a general public holiday, but the
// RBA, being a bank, does not publish on it. 'observance' (Mother's/Father's Day)
// always falls on a Sunday and is not a day off; 'optional' and 'school' do not
// close banks (and date-holidays currently returns neither for AU/NSW).
// Checked against the RBA's own F11.1 download (seed/f11.1-data_2026-05-11.csv, 2023 to
// 2026) and its USD series of 2018 to 2022 (test/domain/publication-days.test.ts): the
// weekdays missing from them are exactly these days, but for one correction below.
const CLOSED_HOLIDAY_TYPES: ReadonlySet<string> = new Set(['public', 'bank']);

/**
 * date-holidays gives NSW a Monday off for an Anzac Day that falls on a Saturday in every year
 * before 2026 as well. NSW had none before its law changed for 2026: the RBA published on Monday
 * 27 April 2020, the one such Monday of the history. From 2026 on its Monday substitutes hold (the
 * RBA did not publish on 27 April 2026).
 */
const ANZAC_SUBSTITUTES_FROM = 2026;
const isBogusAnzacSubstitute = (holiday: { name: string; substitute?: boolean }, year: number): boolean =>
  year < ANZAC_SUBSTITUTES_FROM && holiday.substitute === true && holiday.name.startsWith('Anzac Day');

const NSW_HOLIDAYS = new Holidays('AU', 'NSW');

// Evaluating the holiday rules is comparatively slow, and isBusinessDay sits on hot paths, so each
// year's closed dates are worked out once and kept (every year of the history and a few more).
const closedDatesByYear = new LRUCache<number, ReadonlyMap<string, string>>({
  max: 64,
  memoMethod: (year) => {
    const dates = new Map<string, string>();
    for (const holiday of NSW_HOLIDAYS.getHolidays(year, 'en')) {
      // holiday.date is local wall-clock 'YYYY-MM-DD HH:mm:ss' in the holiday's zone.
      const date = holiday.date.slice(0, 10);
      if (CLOSED_HOLIDAY_TYPES.has(holiday.type) && !isBogusAnzacSubstitute(holiday, year) && !dates.has(date)) dates.set(date, holiday.name);
    }
    return dates;
  },
});

const closedDatesOf = (year: number): ReadonlyMap<string, string> => closedDatesByYear.memo(year);

/** The value of the ASCII digits text[from, to), or -1 when one of them is not a digit. */
function digitsAt(text: string, from: number, to: number): number {
  let value = 0;
  for (let i = from; i < to; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

const isLeapYear = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;

/** The number of days of month `month` (1–12) of `year`. */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

// Returns the UTC epoch milliseconds of 00:00 UTC on `date`, or NaN if `date` is not a strict,
// real ISO calendar date ('YYYY-MM-DD'). Read digit by digit, with no match object or Date made:
// every request that names a date comes through here, several times.
function parseIsoDate(date: string): number {
  if (date.length !== 10 || date.charCodeAt(4) !== 0x2d || date.charCodeAt(7) !== 0x2d) return Number.NaN;
  const year = digitsAt(date, 0, 4);
  const month = digitsAt(date, 5, 7);
  const day = digitsAt(date, 8, 10);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return Number.NaN;
  if (year >= 100) return Date.UTC(year, month - 1, day);
  // Date.UTC maps years 0..99 to 1900..1999.
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
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

const MS_PER_HOUR = 3_600_000;

// The date in Sydney is asked for several times by most requests (plan windows, "today"), and
// nearly always for the same hour. Sydney is a whole number of hours ahead of UTC (+10, or +11 in
// daylight saving, switching on the hour), so every instant of one UTC hour has the same Sydney
// date: it is worked out once per hour and kept. The zone conversion costs far more than the
// lookup.
const sydneyDateByUtcHour = new LRUCache<number, string>({
  max: 48,
  memoMethod: (hour) => {
    const date = DateTime.fromMillis(hour * MS_PER_HOUR, { zone: SYDNEY }).toISODate();
    if (date === null) throw new RangeError(`Cannot express ${new Date(hour * MS_PER_HOUR).toISOString()} in ${SYDNEY}`);
    return date;
  },
});

export function sydneyDate(now: Date): string {
  requireValidInstant(now);
  return sydneyDateByUtcHour.memo(Math.floor(now.getTime() / MS_PER_HOUR));
}

export function isBusinessDay(date: string): boolean {
  const ms = requireIsoDate(date);
  const weekday = new Date(ms).getUTCDay();
  if (weekday === 0 || weekday === 6) return false;
  return !closedDatesOf(new Date(ms).getUTCFullYear()).has(date);
}

/** Monday to Friday. */
export function isWeekday(date: string): boolean {
  const weekday = new Date(requireIsoDate(date)).getUTCDay();
  return weekday !== 0 && weekday !== 6;
}

/**
 * The name of the NSW public holiday or Bank Holiday on `date` ("Christmas Day", "Bank Holiday",
 * "Boxing Day (substitute day)"), on which the RBA does not publish; null on any other day.
 */
export function holidayName(date: string): string | null {
  const ms = requireIsoDate(date);
  return closedDatesOf(new Date(ms).getUTCFullYear()).get(date) ?? null;
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
  const slot = DateTime.fromObject({ year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: PUBLICATION_HOUR }, { zone: SYDNEY });
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

/** A Retry-After: the whole seconds from `now` until `until`, at least 1 (a wait never reads as 0). */
export function secondsUntil(until: Date, now: Date): number {
  return Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
}
