// The answer of GET /averages (D37 in docs/decisions.md) as JSON and as CSV, from the one operation
// that asks the core for it; the dashboard's Reports page runs the same operation and offers the
// same CSV, so a customer's download and the API's answer are the same file.
import { graphql, type ResultOf } from '../graphql.js';
import { RawJson, type Json } from '../json.js';
import { CsvBody, csvRow } from './csv.js';

export const AVERAGES = graphql(`
  query Averages($start: LocalDate!, $end: LocalDate!, $codes: [CurrencyCode!], $byMonth: Boolean!) {
    periodAverages(startDate: $start, endDate: $end, codes: $codes) {
      startDate
      endDate
      complete
      rates {
        ...averageFigures
      }
      months @include(if: $byMonth) {
        month
        rates {
          ...averageFigures
        }
      }
    }
  }

  fragment averageFigures on CurrencyAverages {
    code
    mean
    days
    first_date: firstDate
    last_date: lastDate
    end_rate: endRate
    min
    max
  }
`);

export type PeriodAverages = ResultOf<typeof AVERAGES>['periodAverages'];
type Figures = PeriodAverages['rates'][number];

/** The CSV columns, and the order of each code's figures in the JSON. */
export const FIGURE_COLUMNS = ['mean', 'days', 'first_date', 'last_date', 'end_rate', 'min', 'max'] as const;

function figuresJson(rates: readonly Figures[]): Json {
  const out: Record<string, Json> = {};
  for (const f of rates) {
    out[f.code] = {
      mean: new RawJson(f.mean),
      days: f.days,
      first_date: f.first_date,
      last_date: f.last_date,
      end_rate: new RawJson(f.end_rate),
      min: new RawJson(f.min),
      max: new RawJson(f.max),
    };
  }
  return out;
}

/** `period`: the period's canonical name when one was given, else null (a custom range). */
export function averagesJson(period: string | null, averages: PeriodAverages): Json {
  return {
    success: true,
    averages: true,
    period,
    start_date: averages.startDate,
    end_date: averages.endDate,
    complete: averages.complete,
    base: 'AUD',
    rates: figuresJson(averages.rates),
    months: averages.months && Object.fromEntries(averages.months.map((m) => [m.month, figuresJson(m.rates)])),
  };
}

const figureCells = (f: Figures): string[] => [f.mean, String(f.days), f.first_date, f.last_date, f.end_rate, f.min, f.max];

/** One row per code; with months, a leading `month` column and one row per month and code. */
export function averagesCsv(period: string | null, averages: PeriodAverages): CsvBody {
  const name = period ?? `${averages.startDate}_${averages.endDate}`;
  const { months } = averages;
  if (months) {
    return new CsvBody(`aud-averages_${name}_months.csv`, function* () {
      yield csvRow(['month', 'code', ...FIGURE_COLUMNS]);
      for (const m of months) for (const f of m.rates) yield csvRow([m.month, f.code, ...figureCells(f)]);
    });
  }
  return new CsvBody(`aud-averages_${name}.csv`, function* () {
    yield csvRow(['code', ...FIGURE_COLUMNS]);
    for (const f of averages.rates) yield csvRow([f.code, ...figureCells(f)]);
  });
}
