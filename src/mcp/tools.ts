// The MCP tools (D40 in docs/decisions.md) as data: each is the twin of one REST route, named by its
// operation. Its arguments are its twin's parameters, under the same names and read by the same
// schemas, and a call is answered by the twin's own steps (src/mcp/tool-call.ts), so a tool and its
// twin cannot disagree. What is here is what an agent reads to choose a tool. A new tool is one entry.

export interface ToolDefinition {
  name: string;
  /** the REST route (src/rest/routes/) by its operation name */
  twin: string;
  title: string;
  /** what an agent reads to choose the tool */
  description: string;
}

const RATE_NOTE = 'Rates are units of each currency that 1 AUD buys, as the Reserve Bank of Australia published them (table F11.1, 4 pm Sydney).';
const COUNTS = 'Counts one request against the monthly quota, like its REST endpoint.';
const FREE = 'Free: never counts against the quota.';

export const TOOLS: readonly ToolDefinition[] = [
  {
    name: 'get_latest_rates',
    twin: 'Latest',
    title: 'Latest AUD exchange rates',
    description: `The newest published exchange rates against the Australian dollar (AUD). ${RATE_NOTE} ${COUNTS}`,
  },
  {
    name: 'get_rates_for_date',
    twin: 'RateDay',
    title: 'AUD exchange rates of one date',
    description: `The exchange rates against AUD published on one date. Weekends, Australian holidays and days without a publication have no rates: fallback "previous", "next" or "nearest" answers with the nearest rate day before, after, or either way (the earlier on a tie) instead. The plan decides how far back dates go (Free plans have no dated rates). ${RATE_NOTE} ${COUNTS}`,
  },
  {
    name: 'convert',
    twin: 'Convert',
    title: 'Convert an amount between currencies',
    description: `Converts an amount from one currency to another (AUD included) with the newest rates, or with the rates of a date (the newest rate day on or before it, within the plan's history). The result is exact decimal arithmetic, rounded to 4 places; the rate to 6. ${COUNTS}`,
  },
  {
    name: 'get_timeseries',
    twin: 'TimeSeries',
    title: 'AUD exchange rates over a date range',
    description: `The exchange rates against AUD of every rate day in a date range (days without a publication are absent). The plan limits the range's length and how far back it starts. ${RATE_NOTE} ${COUNTS}`,
  },
  {
    name: 'get_fluctuation',
    twin: 'Fluctuation',
    title: 'How AUD exchange rates moved over a date range',
    description: `Per currency, over a date range: the rate on its first and last rate day, the exact change, the change in percent, the lowest, highest and mean rate and the number of rate days. The plan limits the range as for get_timeseries. ${COUNTS}`,
  },
  {
    name: 'get_period_averages',
    twin: 'Averages',
    title: 'Average AUD exchange rates of a period, as filed in accounts',
    description: `Per currency, over a calendar year, an Australian financial year, a half, a quarter, a month or a custom range of at most a year: the exact mean of the published rates, the number of rate days, the first and last of them, the rate on the last one (the period-end rate), the lowest and the highest. Give exactly one of period or start_date and end_date. Professional plans and above; Starter only within its last 30 days. ${COUNTS}`,
  },
  {
    name: 'list_currencies',
    twin: 'Symbols',
    title: 'Supported currencies',
    description: `Every currency code the service quotes against AUD, with its name, symbol and country. ${FREE}`,
  },
  {
    name: 'get_publication_calendar',
    twin: 'Calendar',
    title: 'Which days the RBA publishes rates',
    description: `The Reserve Bank of Australia's publication calendar for a year or a range of at most 366 days (2018 to the end of next year, Sydney dates): the days with rates (stored ones up to the newest, then the business days a publication is expected on), the weekdays the RBA is closed with the holiday's name (New South Wales public holidays and the NSW Bank Holiday), and the weekdays without rates that are no holiday (gaps in the data). Tells which day's rate applies to a date: for a day without one, the nearest rate day (get_rates_for_date with fallback "nearest"). Give exactly one of year or start_date and end_date. ${FREE}`,
  },
  {
    name: 'get_usage',
    twin: 'Usage',
    title: "This key's quota and use",
    description: `Where the API key's account stands this quota period: the plan, when the period began and when its count resets, the quota, the requests used and remaining (as the X-RateLimit headers say), the key's own cap and use, and each endpoint's counted requests. ${FREE}`,
  },
  {
    name: 'get_service_status',
    twin: 'Status',
    title: 'Service and data status',
    description: `Whether the rates are current: the last update, whether the data is stale and when the next publication is expected. ${FREE}`,
  },
];
