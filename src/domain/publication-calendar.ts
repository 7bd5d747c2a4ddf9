// The RBA's publication calendar over a range of dates (D43 in docs/decisions.md): which days have
// rates, which weekdays the RBA is closed and why, which weekdays are gaps in the stored data, and
// which days a publication is still to come. It answers an accountant's "which day's rate applies":
// a day without rates is a weekend, a named holiday, or a gap.
import { addDays, holidayName, isWeekday } from './calendar.js';

export interface ClosedDay {
  date: string;
  /** the holiday's English name ("Christmas Day", "Bank Holiday") */
  name: string;
}

export interface PublicationCalendar {
  /** ascending: on or before the newest stored date the days with stored rates, after it the business days expected */
  rateDays: string[];
  /** ascending: every weekday of the range without stored rates that is a NSW public holiday or the Bank Holiday */
  closed: ClosedDay[];
  /** ascending: the weekdays on or before the newest stored date that are neither stored nor closed */
  missing: string[];
}

/**
 * The calendar of [start, end]. `stored` holds the dates with stored rates in the range, ascending;
 * `newest` the newest stored date of the whole history (null when nothing is stored: then every
 * business day of the range is still expected, and nothing is missing). A day with stored rates is
 * a rate day whatever the holiday rules say of it.
 */
export function publicationCalendar(start: string, end: string, stored: readonly string[], newest: string | null): PublicationCalendar {
  const rateDays: string[] = [];
  const closed: ClosedDay[] = [];
  const missing: string[] = [];
  let next = 0;
  for (let date = start; date <= end; date = addDays(date, 1)) {
    while (next < stored.length && stored[next]! < date) next++;
    if (stored[next] === date) {
      rateDays.push(date);
      continue;
    }
    if (!isWeekday(date)) continue;
    const holiday = holidayName(date);
    if (holiday !== null) closed.push({ date, name: holiday });
    else if (newest === null || date > newest) rateDays.push(date);
    else missing.push(date);
  }
  return { rateDays, closed, missing };
}
