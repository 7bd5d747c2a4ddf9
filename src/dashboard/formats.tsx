// How the dashboard writes numbers, dates and instants. Every instant is written one way: its UTC
// date and time, then Sydney's reading of it, such as "1 January 2027, 00:00 UTC (11:00 in
// Sydney)". Rate dates and usage days are Sydney's calendar dates, written as dates.
import { SYDNEY } from '../domain/calendar.js';

export const count = new Intl.NumberFormat('en-AU');
const longDate = new Intl.DateTimeFormat('en-AU', { timeZone: 'UTC', dateStyle: 'long' });
const parts = (timeZone: string) =>
  new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
const utcParts = parts('UTC');
const sydneyParts = parts(SYDNEY);

/** An instant's calendar date ('YYYY-MM-DD') and time ('HH:MM') in a zone. */
function reading(format: Intl.DateTimeFormat, instant: Date): { date: string; time: string } {
  const p = Object.fromEntries(format.formatToParts(instant).map((part) => [part.type, part.value]));
  return { date: `${p.year}-${p.month}-${p.day}`, time: `${p.hour}:${p.minute}` };
}

/** A calendar date (YYYY-MM-DD) in words, such as 11 May 2026. */
export const dateInWords = (date: string): string => longDate.format(new Date(`${date}T00:00:00Z`));

/**
 * The dashboard's one way of writing an instant: "1 January 2027, 00:00 UTC (11:00 in Sydney)",
 * Sydney's date named too when it is another day than UTC's.
 */
export function instantInWords(at: Date | string): string {
  const instant = typeof at === 'string' ? new Date(at) : at;
  const utc = reading(utcParts, instant);
  const sydney = reading(sydneyParts, instant);
  const there = sydney.date === utc.date ? sydney.time : `${dateInWords(sydney.date)}, ${sydney.time}`;
  return `${dateInWords(utc.date)}, ${utc.time} UTC (${there} in Sydney)`;
}

/** The first instant of a UTC date, such as a key's expiry: 00:00 UTC that day. */
export const utcMidnight = (date: string): string => `${date}T00:00:00.000Z`;

/** An instant in the dashboard's one convention, as a <time> element. */
export function When({ at }: { at: string }) {
  return <time dateTime={at}>{instantInWords(at)}</time>;
}

/** A Sydney calendar date in words, labelled as one (a usage day, a key's last use). */
export function SydneyDate({ date }: { date: string }) {
  return <time dateTime={date}>{`${dateInWords(date)} (Sydney date)`}</time>;
}
