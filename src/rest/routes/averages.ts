// GET /averages: the figures accountants file.
import { z } from 'zod';
import * as Schemas from '../openapi/schemas.js';
import { Param } from '../params.js';
import { AVERAGES, averagesCsv, averagesJson, averagesWorkbook } from '../averages.js';
import { defineRoute } from '../route.js';
import { spanOrRange, SYMBOLS_AND_BASE } from './shared.js';

/**
 * The query of /averages (D37): exactly one of `period` or `start_date`+`end_date`, then `symbols`,
 * `base` and `interval`. Syntax only: the range's length and direction are the core's rules.
 */
const AVERAGES_QUERY = z
  .object({
    period: Param.period.optional(),
    start_date: Param.date.optional().meta({ description: 'The first day of a custom range (YYYY-MM-DD), with end_date instead of period' }),
    end_date: Param.date.optional().meta({ description: 'The last day of a custom range (YYYY-MM-DD), at most 365 days after start_date' }),
    ...SYMBOLS_AND_BASE,
    interval: Param.interval.optional(),
  })
  .check(spanOrRange('period', 'FY2025, 2024, 2025-H1, 2025-Q3 or 2025-06'));

export const averages = defineRoute(Schemas.AveragesResponse)({
  name: 'Averages',
  method: 'GET',
  cacheable: true,
  rates: true,
  path: '/averages',
  auth: 'key',
  query: AVERAGES_QUERY,
  document: AVERAGES,
  variables: ({ query }) => ({
    start: query.period?.start ?? query.start_date!,
    end: query.period?.end ?? query.end_date!,
    codes: query.symbols ?? null,
    byMonth: query.interval !== undefined,
  }),
  respond: (data, { query }) => ({ body: averagesJson(query.period?.name ?? null, data.periodAverages) }),
  files: {
    csv: (data, { query }) => averagesCsv(query.period?.name ?? null, data.periodAverages),
    xlsx: (data, { query }) => averagesWorkbook(query.period?.name ?? null, data),
  },
  doc: {
    summary: 'Period averages: the figures accountants file',
    description:
      "Per code, over the rate days of the period that carry a value: the mean (exact, rounded half away from zero to 6 places), the number of days, the first and last of them, the rate on the last (the nearest actual rate at the period's end), the lowest and the highest. Give exactly one of `period` or `start_date` and `end_date` (at most 365 days apart). Starter keys reach periods inside their 30-day history window; Professional and above any period from 2018; Free none. A code without a value in the period is left out; a period without any rate day is 404. With `Accept: text/csv` the answer is a CSV file: a header row `code,mean,days,first_date,last_date,end_rate,min,max` and one row per code (with `interval=month`, a leading `month` column and one row per month and code), the mean with 6 decimal places and the rates with the decimals the RBA published. With `Accept: application/vnd.openxmlformats-officedocument.spreadsheetml.sheet` it is an Excel workbook: an `Averages` sheet (and with `interval=month` a `Months` sheet) with real dates and numbers formatted the same way, and a `Source` sheet naming RBA table F11.1, each code's series id and units, and when the data was read. Counted as one request whatever the format; errors stay JSON.",
    errors: ['plan_restricted', 'not_found'],
    example: { request: '/averages?period=FY2025&symbols=USD,EUR,JPY' },
  },
  cacheControl: 'no-store',
});
