// The answer of GET /averages (D37 in docs/decisions.md) as JSON, CSV and an Excel workbook (D44,
// D48), from the one operation that asks the core for it; the dashboard's Reports page runs the same
// operation and offers the same files, so a customer's download and the API's answer are the same.
import { publishedText } from '../domain/currencies.js';
import { padDecimal } from '../domain/decimal.js';
import { graphql, type ResultOf } from '../graphql.js';
import { RawJson } from '../json.js';
import { csvBody, csvRow } from './csv.js';
import type { StreamedBody } from './streamed-body.js';
import type { Cell } from './spreadsheet-ml.js';
import { dateCell, decimalCell, integerCell, publishedCell, workbookBody } from './workbook.js';

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
    ratesReadAt
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

export type AveragesResult = ResultOf<typeof AVERAGES>;
export type PeriodAverages = AveragesResult['periodAverages'];
type Figures = PeriodAverages['rates'][number];

/** The CSV columns, and the order of each code's figures in the JSON. */
export const FIGURE_COLUMNS = ['mean', 'days', 'first_date', 'last_date', 'end_rate', 'min', 'max'] as const;

/** Each code's figures, its rates exact JSON numbers. */
function figuresJson(rates: readonly Figures[]) {
  const out: Partial<
    Record<Figures['code'], Record<'mean' | 'end_rate' | 'min' | 'max', RawJson<number>> & Pick<Figures, 'days' | 'first_date' | 'last_date'>>
  > = {};
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
export function averagesJson(period: string | null, averages: PeriodAverages) {
  return {
    success: true as const,
    averages: true as const,
    period,
    start_date: averages.startDate,
    end_date: averages.endDate,
    complete: averages.complete,
    base: 'AUD' as const,
    rates: figuresJson(averages.rates),
    months: averages.months && Object.fromEntries(averages.months.map((m) => [m.month, figuresJson(m.rates)])),
  };
}

/** D48: a mean with its 6 fixed places; the rates with their series' published decimals. */
export const MEAN_PLACES = 6;
export const meanText = (mean: string): string => padDecimal(mean, MEAN_PLACES);

const figureCells = (f: Figures): string[] => [
  meanText(f.mean),
  String(f.days),
  f.first_date,
  f.last_date,
  publishedText(f.code, f.end_rate),
  publishedText(f.code, f.min),
  publishedText(f.code, f.max),
];

/** The file name without its extension: the period's name, or the custom range. */
const stemOf = (period: string | null, averages: PeriodAverages) => `aud-averages_${period ?? `${averages.startDate}_${averages.endDate}`}`;

function* codeRows(averages: PeriodAverages): Generator<string> {
  yield csvRow(['code', ...FIGURE_COLUMNS]);
  for (const f of averages.rates) yield csvRow([f.code, ...figureCells(f)]);
}

function* monthRows(months: NonNullable<PeriodAverages['months']>): Generator<string> {
  yield csvRow(['month', 'code', ...FIGURE_COLUMNS]);
  for (const m of months) for (const f of m.rates) yield csvRow([m.month, f.code, ...figureCells(f)]);
}

/** One row per code; with months, a leading `month` column and one row per month and code. */
export function averagesCsv(period: string | null, averages: PeriodAverages): StreamedBody {
  const stem = stemOf(period, averages);
  const { months } = averages;
  return months ? csvBody(`${stem}_months.csv`, () => monthRows(months)) : csvBody(`${stem}.csv`, () => codeRows(averages));
}

const HEADINGS = ['Mean', 'Days', 'First date', 'Last date', 'End rate', 'Lowest', 'Highest'];
const WIDTHS = [12, 6, 12, 12, 11, 11, 11];

const figureRow = (f: Figures): Cell[] => [
  decimalCell(f.mean, MEAN_PLACES),
  integerCell(f.days),
  dateCell(f.first_date),
  dateCell(f.last_date),
  publishedCell(f.code, f.end_rate),
  publishedCell(f.code, f.min),
  publishedCell(f.code, f.max),
];

/** A sheet `Averages` of the codes' figures over the period and, with months, a sheet `Months`; then `Source`. */
export function averagesWorkbook(
  period: string | null,
  { periodAverages: averages, ratesReadAt }: Pick<AveragesResult, 'periodAverages' | 'ratesReadAt'>,
): StreamedBody {
  const { months } = averages;
  const sheets = () => [
    {
      name: 'Averages',
      rows: function* (): Generator<Cell[]> {
        yield ['Code', ...HEADINGS];
        for (const f of averages.rates) yield [f.code, ...figureRow(f)];
      },
      widths: [8, ...WIDTHS],
    },
    ...(months
      ? [
          {
            name: 'Months',
            rows: function* (): Generator<Cell[]> {
              yield ['Month', 'Code', ...HEADINGS];
              for (const m of months) for (const f of m.rates) yield [{ ...dateCell(`${m.month}-01`), z: 'yyyy-mm' }, f.code, ...figureRow(f)];
            },
            widths: [9, 8, ...WIDTHS],
          },
        ]
      : []),
  ];
  const range = `${averages.startDate} to ${averages.endDate}`;
  return workbookBody(
    `${stemOf(period, averages)}${months ? '_months' : ''}.xlsx`,
    sheets,
    {
      contents: `Period averages${period ? ` of ${period}` : ''}, ${range}${averages.complete ? '' : ' (the period is still running: the rate days published so far)'}`,
      codes: averages.rates.map((f) => f.code),
      readAt: ratesReadAt === null ? null : new Date(ratesReadAt),
      notes: [['Mean', 'The exact mean of the values published in the period, rounded half away from zero to 6 decimal places']],
    },
    function* () {
      yield* codeRows(averages);
      if (months) yield* monthRows(months);
    },
  );
}
