// The RBA's publication calendar (GET /calendar, the MCP tool get_publication_calendar; D43 in
// docs/decisions.md): the stored rate days of a range, the weekdays the RBA was or will be closed and
// why, the gaps in the stored data, and the business days still to come. Free to every viewer.
import { daysBetween, FIRST_DATE, nextPublicationSlotAt, sydneyDate } from '../domain/calendar.js';
import { publicationCalendar, type ClosedDay, type PublicationCalendar } from '../domain/publication-calendar.js';
import { BadRequestError } from '../errors.js';
import { builder } from './builder.js';
import type { Context } from './context.js';

/** the longest range one answer covers: a leap year */
export const MAX_CALENDAR_DAYS = 366;

interface CalendarRange extends PublicationCalendar {
  startDate: string;
  endDate: string;
  newestRateDate: string | null;
  nextUpdateExpected: Date;
}

const ClosedDayRef = builder.objectRef<ClosedDay>('ClosedDay').implement({
  description: 'A weekday the RBA does not publish on: a New South Wales public holiday or the NSW Bank Holiday.',
  fields: (t) => ({
    date: t.expose('date', { type: 'LocalDate' }),
    name: t.exposeString('name', { description: 'The holiday, in English ("Christmas Day", "Bank Holiday")' }),
  }),
});

const PublicationCalendarRef = builder.objectRef<CalendarRange>('PublicationCalendar').implement({
  description: 'Which days of a range have rates, which weekdays the RBA is closed, and which are gaps in the stored data.',
  fields: (t) => ({
    startDate: t.expose('startDate', { type: 'LocalDate' }),
    endDate: t.expose('endDate', { type: 'LocalDate' }),
    rateDays: t.field({
      type: ['LocalDate'],
      description: 'Ascending: up to newestRateDate the days with stored rates, after it the business days a publication is expected on',
      resolve: (c) => c.rateDays,
    }),
    closed: t.field({ type: [ClosedDayRef], description: 'Ascending: the weekdays without rates that are holidays', resolve: (c) => c.closed }),
    missing: t.field({
      type: ['LocalDate'],
      description: 'Ascending: the weekdays up to newestRateDate that have no stored rates and are no holiday (gaps in the data)',
      resolve: (c) => c.missing,
    }),
    newestRateDate: t.expose('newestRateDate', { type: 'LocalDate', nullable: true }),
    nextUpdateExpected: t.expose('nextUpdateExpected', { type: 'DateTime', description: 'As serviceStatus.nextUpdateExpected' }),
  }),
});

/** D43: end not before start, at most MAX_CALENDAR_DAYS apart, inside 2018-01-01 … 31 December of next year (Sydney). */
function checkRange(start: string, end: string, today: string): void {
  if (end < start) throw new BadRequestError('end_date must not be before start_date');
  const days = daysBetween(start, end);
  if (days > MAX_CALENDAR_DAYS)
    throw new BadRequestError(`The range may span at most ${MAX_CALENDAR_DAYS} days (end_date − start_date); this one spans ${days}`);
  const last = `${Number(today.slice(0, 4)) + 1}-12-31`;
  if (start < FIRST_DATE || end > last) {
    throw new BadRequestError(`The calendar covers ${FIRST_DATE} to ${last} (the end of next year); ${start} to ${end} is outside it`);
  }
}

async function calendarOf(ctx: Context, startDate: string, endDate: string): Promise<CalendarRange> {
  const now = ctx.services.clock();
  checkRange(startDate, endDate, sydneyDate(now));
  const history = await ctx.rates.history();
  const stored = history.between(startDate, endDate).map((day) => day.date);
  return {
    startDate,
    endDate,
    ...publicationCalendar(startDate, endDate, stored, history.newestDate),
    newestRateDate: history.newestDate,
    nextUpdateExpected: history.nextDue ?? nextPublicationSlotAt(now),
  };
}

builder.queryFields((t) => ({
  publicationCalendar: t.field({
    type: PublicationCalendarRef,
    description: `The RBA's publication calendar of [startDate, endDate] (at most ${MAX_CALENDAR_DAYS} days apart, within 2018 and the end of next year).`,
    args: { startDate: t.arg({ type: 'LocalDate', required: true }), endDate: t.arg({ type: 'LocalDate', required: true }) },
    resolve: (_root, { startDate, endDate }, ctx) => calendarOf(ctx, startDate, endDate),
  }),
  ratesReadAt: t.field({
    type: 'DateTime',
    nullable: true,
    description: 'When the rates this request reads were stored (read from the RBA); null before the first import',
    resolve: async (_root, _args, ctx) => (await ctx.rates.history()).lastStoredAt,
  }),
}));
