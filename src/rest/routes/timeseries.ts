// GET /timeseries, as JSON or CSV.
import { QUOTED_CODES } from '../../domain/currencies.js';
import { graphql } from '../../graphql.js';
import { seriesJson } from '../../json.js';
import * as Schemas from '../openapi/schemas.js';
import { CsvBody, csvRow } from '../csv.js';
import { defineRoute } from '../route.js';
import { DATE_RANGE } from './shared.js';

export const timeSeries = defineRoute({
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
  csv: ({ timeSeries: { rates } }, { query }) => {
    const columns = query.symbols ?? QUOTED_CODES;
    return new CsvBody(`aud-rates_${query.start_date}_${query.end_date}.csv`, function* () {
      yield csvRow(['date', ...columns]);
      for (const [date, day] of rates.entries()) yield csvRow([date, ...columns.map((code) => day[code] ?? '')]);
    });
  },
  doc: {
    summary: 'The rates of every day with data in a date range',
    description:
      "Only days with data appear: weekends and holidays are left out, and a range without any rate day is 404. The range may be at most the plan's time-series range (Starter 7 days, Professional 90, Business and Enterprise 365) and must lie within its history. With `Accept: text/csv` the answer is a CSV file (`text/csv; charset=utf-8`, LF line ends, no BOM): a header row `date,USD,EUR,…` in the order of `symbols` (every code in /latest's order otherwise), one row per rate day, ascending, with the digits of the JSON and an empty cell where a code was not published; errors stay JSON.",
    response: Schemas.TimeSeriesResponse,
    errors: ['plan_restricted', 'not_found'],
    example: {
      request: '/timeseries?start_date=2023-01-01&end_date=2023-01-31&symbols=USD,EUR',
      response: {
        success: true,
        timeseries: true,
        start_date: '2023-01-01',
        end_date: '2023-01-31',
        base: 'AUD',
        rates: { '2023-01-03': { USD: 0.6828, EUR: 0.64 }, '2023-01-04': { USD: 0.6811, EUR: 0.6437 } },
      },
      csv: 'date,USD,EUR\n2023-01-03,0.6828,0.64\n2023-01-04,0.6811,0.6437\n',
    },
  },
  cacheControl: 'no-store',
});
