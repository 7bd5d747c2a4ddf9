// Calendar dates as plain 'YYYY-MM-DD' strings, built from calendar parts only
// (never through a Date at local midnight converted to UTC, which drifts by a day
// east or west of Greenwich).

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH_NAMES = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** 'YYYY-MM-DD' from calendar parts (month 1-12), or null if there is no such day. */
export function isoFromParts(year: number, month: number, day: number): string | null {
  if (!Number.isInteger(year) || !Number.isInteger(month) || !Number.isInteger(day)) return null;
  if (year < 1900 || year > 2199 || month < 1 || month > 12) return null;
  if (day < 1 || day > daysInMonth(year, month)) return null;
  return `${year}-${pad2(month)}-${pad2(day)}`;
}

const RBA_DATE = /^(\d{1,2})-([A-Za-z]{3})-(\d{4})$/;

/** The RBA's 'DD-Mon-YYYY' (e.g. '03-Jan-2023') as 'YYYY-MM-DD', or null if it is not a real day. */
export function parseRbaDate(text: string): string | null {
  const m = RBA_DATE.exec(text);
  if (!m) return null;
  const month = MONTHS.indexOf(m[2]!.toLowerCase()) + 1;
  if (month === 0) return null;
  return isoFromParts(Number(m[3]), month, Number(m[1]));
}

/** 'YYYY-MM-DD' back to the RBA's 'DD-Mon-YYYY'. */
export function toRbaDate(iso: string): string {
  const [y, m, d] = iso.split('-');
  return `${d}-${MONTH_NAMES[Number(m) - 1]}-${y}`;
}

const ISO_DATE_PREFIX = /^(\d{4})-(\d{2})-(\d{2})(?=$|T|\s)/;

/**
 * The calendar date written at the start of an ISO 8601 date-time, as written:
 * '2021-04-01T16:45:00+11:00' → '2021-04-01' (the local Sydney date; not
 * converted to UTC, which would give the previous day for early-morning times).
 */
export function isoDatePart(text: string): string | null {
  const m = ISO_DATE_PREFIX.exec(text);
  return m ? isoFromParts(Number(m[1]), Number(m[2]), Number(m[3])) : null;
}
