// GET /calendar: the RBA's publication calendar, free to everyone (D43 in docs/decisions.md).
import { z } from 'zod';
import { SYDNEY } from '../../domain/calendar.js';
import { graphql } from '../../graphql.js';
import * as Schemas from '../openapi/schemas.js';
import { Param } from '../params.js';
import { defineRoute } from '../route.js';
import { spanOrRange } from './shared.js';

const CALENDAR_QUERY = z
  .object({
    year: Param.year.optional(),
    start_date: Param.date.optional().meta({ description: 'The first day of a range (YYYY-MM-DD), with end_date instead of year' }),
    end_date: Param.date.optional().meta({ description: 'The last day of a range (YYYY-MM-DD), at most 366 days after start_date' }),
  })
  .check(spanOrRange('year', '2026'));

export const calendar = defineRoute(Schemas.CalendarResponse)({
  name: 'Calendar',
  method: 'GET',
  cacheable: true,
  path: '/calendar',
  auth: 'none',
  query: CALENDAR_QUERY,
  document: graphql(`
    query Calendar($start: LocalDate!, $end: LocalDate!) {
      publicationCalendar(startDate: $start, endDate: $end) {
        startDate
        endDate
        rateDays
        closed {
          date
          name
        }
        missing
        newestRateDate
        nextUpdateExpected
      }
    }
  `),
  variables: ({ query }) => (query.year ? { start: `${query.year}-01-01`, end: `${query.year}-12-31` } : { start: query.start_date!, end: query.end_date! }),
  respond: ({ publicationCalendar: c }) => ({
    body: {
      success: true,
      start_date: c.startDate,
      end_date: c.endDate,
      timezone: SYDNEY,
      rate_days: c.rateDays,
      closed: c.closed,
      missing: c.missing,
      newest_rate_date: c.newestRateDate,
      next_update_expected: c.nextUpdateExpected,
    },
  }),
  doc: {
    summary: 'Which days the RBA publishes rates: the publication calendar',
    description:
      "The Reserve Bank of Australia publishes its rates at about 4 pm Sydney time on business days: Monday to Friday, except New South Wales public holidays and the NSW Bank Holiday (the first Monday of August). For a range of dates (a `year`, or `start_date` and `end_date` at most 366 days apart, from 2018 to the end of next year), the answer lists the days with rates (`rate_days`: up to `newest_rate_date` the days whose rates are stored, after it the business days a publication is expected on), the weekdays the RBA is closed with the holiday's name (`closed`), and the weekdays up to the newest rates that have none and are no holiday (`missing`: gaps in the data). When a day has no rate, the ATO's guidance is to use the rate of the nearest day that has one: `/{date}?fallback=nearest` answers with it. No key, never metered, cacheable for an hour.",
    errors: [],
    example: { request: '/calendar?start_date=2025-12-15&end_date=2026-01-16' },
  },
  cacheControl: 'public, max-age=3600',
});
