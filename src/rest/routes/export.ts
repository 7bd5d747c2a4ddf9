// GET /export: the whole stored history, or any range of it, as CSV, NDJSON or an Excel workbook
// (D45 in docs/decisions.md), written a day at a time as it is sent.
import { z } from 'zod';
import { graphql } from '../../graphql.js';
import { Param } from '../params.js';
import { seriesFile, seriesFiles } from '../rate-files.js';
import { defineRoute } from '../route.js';
import { SYMBOLS_AND_BASE } from './shared.js';

const EXPORT = graphql(`
  query Export($start: LocalDate, $end: LocalDate, $codes: [CurrencyCode!]) {
    rateExport(startDate: $start, endDate: $end, having: $codes) {
      startDate
      endDate
      series {
        rates(codes: $codes)
      }
    }
    ratesReadAt
  }
`);

const fileOf = ({ rateExport: e, ratesReadAt }: { rateExport: { startDate: string; endDate: string }; ratesReadAt: string | null }) =>
  seriesFile(e.startDate, e.endDate, ratesReadAt);

export const rateExport = defineRoute(null)({
  name: 'Export',
  method: 'GET',
  cacheable: true,
  rates: true,
  path: '/export',
  auth: 'key',
  query: z.object({
    start_date: Param.date.optional().meta({ description: 'The first day (YYYY-MM-DD); left out, the first stored day (2018)' }),
    end_date: Param.date.optional().meta({ description: 'The last day (YYYY-MM-DD), not before start_date; left out, today' }),
    ...SYMBOLS_AND_BASE,
  }),
  document: EXPORT,
  variables: ({ query }) => ({ start: query.start_date ?? null, end: query.end_date ?? null, codes: query.symbols ?? null }),
  // No JSON: CSV unless Accept asks for NDJSON or a workbook.
  files: {
    csv: (data) => seriesFiles.csv(data.rateExport.series.rates, fileOf(data)),
    ndjson: (data) => seriesFiles.ndjson(data.rateExport.series.rates, fileOf(data)),
    xlsx: (data) => seriesFiles.xlsx(data.rateExport.series.rates, fileOf(data)),
  },
  doc: {
    summary: 'The whole history, or any range of it, as a file',
    description:
      'Business and Enterprise. Every stored rate day from 2018 on, or those of `start_date` to `end_date` (either may be left out; no range limit), with `symbols` as elsewhere, in one answer written as it is produced, whatever its length. A CSV file by default (`text/csv; charset=utf-8`, the layout of /timeseries\' CSV: a header row `date,USD,EUR,…`, a row per rate day, each value with the decimals the RBA published); with `Accept: application/x-ndjson`, one JSON object a line, `{"date", "rates"}`, in date order; with `Accept: application/vnd.openxmlformats-officedocument.spreadsheetml.sheet`, an Excel workbook with a `Rates` sheet and a `Source` sheet. An Accept that allows none of the three is 406 `not_acceptable`. One request against the quota; errors are JSON.',
    errors: ['plan_restricted', 'not_found', 'not_acceptable'],
    example: { request: '/export?start_date=2025-06-23&end_date=2025-07-04&symbols=USD,EUR' },
  },
  cacheControl: 'no-store',
});
