// GET /timeseries, as JSON, CSV, NDJSON or an Excel workbook.
import { graphql } from '../../graphql.js';
import { seriesJson } from '../../json.js';
import * as Schemas from '../openapi/schemas.js';
import { seriesFile, seriesFiles } from '../rate-files.js';
import { defineRoute } from '../route.js';
import { DATE_RANGE } from './shared.js';

const fileOf = (readAt: string | null, { query }: { query: { start_date: string; end_date: string } }) => seriesFile(query.start_date, query.end_date, readAt);

export const timeSeries = defineRoute(Schemas.TimeSeriesResponse)({
  name: 'TimeSeries',
  method: 'GET',
  cacheable: true,
  rates: true,
  path: '/timeseries',
  auth: 'key',
  query: DATE_RANGE,
  document: graphql(`
    query TimeSeries($start: LocalDate!, $end: LocalDate!, $codes: [CurrencyCode!]) {
      timeSeries(startDate: $start, endDate: $end, having: $codes) {
        rates(codes: $codes)
      }
      ratesReadAt
    }
  `),
  variables: ({ query }) => ({ start: query.start_date, end: query.end_date, codes: query.symbols ?? null }),
  respond: (data, { query }) => ({
    body: {
      success: true,
      timeseries: true,
      start_date: query.start_date,
      end_date: query.end_date,
      base: 'AUD',
      rates: seriesJson(data.timeSeries.rates),
    },
  }),
  // Columns in the order of `symbols`, else every code in /latest's order; a blank where a code was not published.
  files: {
    csv: (data, req) => seriesFiles.csv(data.timeSeries.rates, fileOf(data.ratesReadAt, req)),
    ndjson: (data, req) => seriesFiles.ndjson(data.timeSeries.rates, fileOf(data.ratesReadAt, req)),
    xlsx: (data, req) => seriesFiles.xlsx(data.timeSeries.rates, fileOf(data.ratesReadAt, req)),
  },
  doc: {
    summary: 'The rates of every day with data in a date range',
    description:
      'Only days with data appear: weekends and holidays are left out, and a range without any rate day is 404. The range may be at most the plan\'s time-series range (Starter 7 days, Professional 90, Business and Enterprise 365) and must lie within its history. With `Accept: text/csv` the answer is a CSV file (`text/csv; charset=utf-8`, LF line ends, no BOM): a header row `date,USD,EUR,…` in the order of `symbols` (every code in /latest\'s order otherwise), one row per rate day, ascending, each value with the decimals the RBA published (`0.6400`, `88.48`, `10635`) and an empty cell where a code was not published. With `Accept: application/x-ndjson` it is one JSON object a line, `{"date", "rates"}`, in date order, written as it is produced. With `Accept: application/vnd.openxmlformats-officedocument.spreadsheetml.sheet` it is an Excel workbook: a `Rates` sheet of the CSV\'s rows with real dates and each value formatted with its published decimals, and a `Source` sheet naming RBA table F11.1, each code\'s series id and units, and when the data was read. Counted as one request whatever the format; errors stay JSON.',
    errors: ['plan_restricted', 'not_found'],
    example: { request: '/timeseries?start_date=2025-06-23&end_date=2025-07-04&symbols=USD,EUR' },
  },
  cacheControl: 'no-store',
});
