// How the dashboard writes numbers, dates and instants.
import { SYDNEY } from '../domain/calendar.js';

export const count = new Intl.NumberFormat('en-AU');
const sydneyInstant = new Intl.DateTimeFormat('en-AU', { timeZone: SYDNEY, dateStyle: 'long', timeStyle: 'short', hourCycle: 'h23' });
const utcInstant = new Intl.DateTimeFormat('en-AU', { timeZone: 'UTC', dateStyle: 'long', timeStyle: 'short', hourCycle: 'h23' });
const longDate = new Intl.DateTimeFormat('en-AU', { timeZone: 'UTC', dateStyle: 'long' });

/** An instant in Sydney time, the zone named (rate dates and usage days are Sydney's too); its UTC reading on hover. */
export function When({ at }: { at: string }) {
  const instant = new Date(at);
  return <time dateTime={at} title={`${utcInstant.format(instant)} UTC`}>{`${sydneyInstant.format(instant)} Sydney time`}</time>;
}

/** A calendar date (YYYY-MM-DD) in words, such as 11 May 2026. */
export const dateInWords = (date: string): string => longDate.format(new Date(`${date}T00:00:00Z`));

/** A Sydney date in words, labelled as one. */
export function SydneyDate({ date }: { date: string }) {
  return <time dateTime={date}>{`${dateInWords(date)} (Sydney date)`}</time>;
}
