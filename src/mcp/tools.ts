// The MCP tools (D40 in docs/decisions.md) as data: each is the twin of one REST route, named by its
// operation, and takes that route's parameters as its arguments, under the same names. A call is
// answered by the twin itself (its `variables`, its operation, its `respond`: src/mcp/tool-call.ts),
// so a tool and its twin cannot disagree. A new tool is one entry here.
import { z, type ZodType } from 'zod';

/** What an argument's JSON can be: text, a number, or a list of codes. */
export type ArgumentValue = string | number | string[];

/** One argument: its JSON type (the values themselves are the twin's to check), and what it is. */
export interface ToolArgument {
  schema: ZodType<ArgumentValue>;
  /** what a valid value is, for the description and for a refusal's info */
  expects: string;
  required?: boolean;
  /** the twin takes it in its path (`/{date}`) rather than its query */
  inPath?: boolean;
}

export interface ToolDefinition {
  name: string;
  /** the REST route (src/rest/routes.ts) by its operation name */
  twin: string;
  title: string;
  /** what an agent reads to choose the tool */
  description: string;
  arguments: Readonly<Record<string, ToolArgument>>;
}

const describe = (argument: ToolArgument, description: string): ToolArgument => ({
  ...argument,
  schema: argument.schema.describe(`${description} (${argument.expects})`),
});

const date = (description: string, extra: Partial<ToolArgument> = {}): ToolArgument =>
  describe({ schema: z.string(), expects: 'a date as YYYY-MM-DD', ...extra }, description);
const code = (description: string): ToolArgument =>
  describe({ schema: z.string(), expects: 'a currency code such as USD, EUR or JPY', required: true }, description);
const symbols: ToolArgument = describe(
  { schema: z.array(z.string()), expects: 'an array of currency codes such as ["USD", "EUR"]' },
  'Only these currencies; every published currency when left out',
);
const rangeArguments = {
  start_date: date('The first day of the range', { required: true }),
  end_date: date('The last day of the range, not before start_date', { required: true }),
  symbols,
};

const RATE_NOTE = 'Rates are units of each currency that 1 AUD buys, as the Reserve Bank of Australia published them (table F11.1, 4 pm Sydney).';
const COUNTS = 'Counts one request against the monthly quota, like its REST endpoint.';
const FREE = 'Free: never counts against the quota.';

export const TOOLS: readonly ToolDefinition[] = [
  {
    name: 'get_latest_rates',
    twin: 'Latest',
    title: 'Latest AUD exchange rates',
    description: `The newest published exchange rates against the Australian dollar (AUD). ${RATE_NOTE} ${COUNTS}`,
    arguments: { symbols },
  },
  {
    name: 'get_rates_for_date',
    twin: 'RateDay',
    title: 'AUD exchange rates of one date',
    description: `The exchange rates against AUD published on one date. Weekends, Australian holidays and days without a publication have no rates: fallback "previous" or "next" answers with the nearest rate day before or after instead. The plan decides how far back dates go (Free plans have no dated rates). ${RATE_NOTE} ${COUNTS}`,
    arguments: {
      date: date('The rate date', { required: true, inPath: true }),
      fallback: describe({ schema: z.string(), expects: '"previous" or "next"' }, 'When the date has no rates, use the nearest rate day before it or after it'),
    },
  },
  {
    name: 'convert',
    twin: 'Convert',
    title: 'Convert an amount between currencies',
    description: `Converts an amount from one currency to another (AUD included) with the newest rates, or with the rates of a date (the newest rate day on or before it, within the plan's history). The result is exact decimal arithmetic, rounded to 4 places; the rate to 6. ${COUNTS}`,
    arguments: {
      from: code('The currency of the amount'),
      to: code('The currency to convert to (not TWI, an index)'),
      amount: describe(
        { schema: z.union([z.number(), z.string()]), expects: 'a positive decimal such as 100 or "1234.56", at most 1e15', required: true },
        'The amount to convert',
      ),
      date: date("Use the rates of this date instead of the newest (within the plan's history)"),
    },
  },
  {
    name: 'get_timeseries',
    twin: 'TimeSeries',
    title: 'AUD exchange rates over a date range',
    description: `The exchange rates against AUD of every rate day in a date range (days without a publication are absent). The plan limits the range's length and how far back it starts. ${RATE_NOTE} ${COUNTS}`,
    arguments: rangeArguments,
  },
  {
    name: 'get_fluctuation',
    twin: 'Fluctuation',
    title: 'How AUD exchange rates moved over a date range',
    description: `Per currency, over a date range: the rate on its first and last rate day, the exact change, the change in percent, the lowest, highest and mean rate and the number of rate days. The plan limits the range as for get_timeseries. ${COUNTS}`,
    arguments: rangeArguments,
  },
  {
    name: 'get_period_averages',
    twin: 'Averages',
    title: 'Average AUD exchange rates of a period, as filed in accounts',
    description: `Per currency, over a calendar year, an Australian financial year, a half, a quarter, a month or a custom range of at most a year: the exact mean of the published rates, the number of rate days, the first and last of them, the rate on the last one (the period-end rate), the lowest and the highest. Give exactly one of period or start_date and end_date. Professional plans and above; Starter only within its last 30 days. ${COUNTS}`,
    arguments: {
      period: describe(
        { schema: z.string(), expects: '2024 (a year), FY2025 (1 July 2024 to 30 June 2025), 2025-H1, 2025-Q3 or 2025-06' },
        'The period to average',
      ),
      start_date: date('The first day of a custom range, with end_date instead of period'),
      end_date: date('The last day of a custom range, with start_date instead of period'),
      symbols,
      interval: describe({ schema: z.string(), expects: '"month"' }, 'Add the same figures for each calendar month of the period'),
    },
  },
  {
    name: 'list_currencies',
    twin: 'Symbols',
    title: 'Supported currencies',
    description: `Every currency code the service quotes against AUD, with its name, symbol and country. ${FREE}`,
    arguments: {},
  },
  {
    name: 'get_service_status',
    twin: 'Status',
    title: 'Service and data status',
    description: `Whether the rates are current: the last update, whether the data is stale and when the next publication is expected. ${FREE}`,
    arguments: {},
  },
];
