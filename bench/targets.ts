// What is measured: each target's URL and headers, and a check of one answer before the load.
// Varied targets send a different request each time: seeded random dates, ranges, symbols, pairs
// and amounts drawn from the stored history, in the same order in every run.
import { addDays } from '../src/domain/calendar.js';
import { PUBLISHED_CODES } from '../src/domain/currencies.js';
import { HISTORY_DAYS } from './fixtures.js';
import { between, pick, seededRandom } from '../test/support/random.js';
import type { ServersInfo } from './servers.js';

/** The fields of a sample answer the checks look at (whichever the target's endpoint has). */
interface SampleBody {
  success?: unknown;
  count?: unknown;
  date?: unknown;
  rates?: Record<string, Record<string, number>>;
  result?: unknown;
  free?: unknown;
}

export interface Target {
  name: string;
  /** the server and path of a fixed request; of the first request of a varied target */
  url: string;
  /** a varied target: the paths it sends in turn (the server is `url`'s) */
  paths?: readonly string[];
  /** an MCP target: the JSON-RPC messages it POSTs to `url` in turn; its answers are checked by their structured content */
  bodies?: readonly string[];
  headers: Record<string, string>;
  /** connection k sends these headers instead (the k-th, in turn): a target whose connections are different customers */
  connectionHeaders?: readonly Record<string, string>[];
  /** true for the baseline the others are compared with */
  baseline?: boolean;
  /** throws when a sample answer is not what a correct service sends */
  check(body: SampleBody): void;
}

function expect(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

/** requests drawn per varied target, sent in turn */
const VARIED_REQUESTS = 20_000;
const CONVERTIBLE = ['AUD', ...PUBLISHED_CODES.filter((code) => code !== 'TWI')];

/** `/{date}`: a stored day, any of them. */
function datePaths(count: number): string[] {
  const random = seededRandom(1);
  return Array.from({ length: count }, () => `/${pick(random, HISTORY_DAYS).date}`);
}

/** `/timeseries`: 1 to 90 days from a stored day, 1 to 3 symbols, always with some data. */
function timeseriesPaths(count: number): string[] {
  const random = seededRandom(2);
  const paths: string[] = [];
  while (paths.length < count) {
    const start = between(random, 0, HISTORY_DAYS.length - 1);
    const end = addDays(HISTORY_DAYS[start]!.date, between(random, 0, 89));
    const symbols = new Set(Array.from({ length: between(random, 1, 3) }, () => pick(random, PUBLISHED_CODES)));
    // D8 (docs/decisions.md): a range where none of the symbols has a value is a 404; the bench sends
    // only answerable ones
    const answerable = HISTORY_DAYS.slice(start).some((day) => day.date <= end && [...symbols].some((code) => day.rates[code] !== undefined));
    if (answerable) paths.push(`/timeseries?start_date=${HISTORY_DAYS[start]!.date}&end_date=${end}&symbols=${[...symbols].join(',')}`);
  }
  return paths;
}

/** dated `/convert`: any calendar date (weekends and holidays too), a pair of different codes, an amount with 0 to 2 decimals. */
function convertPaths(count: number): string[] {
  const random = seededRandom(3);
  const first = HISTORY_DAYS[0]!.date;
  const span = HISTORY_DAYS.length * 1.4; // business days to calendar days, roughly
  const last = HISTORY_DAYS.at(-1)!.date;
  const paths: string[] = [];
  while (paths.length < count) {
    const from = pick(random, CONVERTIBLE);
    const to = pick(random, CONVERTIBLE);
    const date = addDays(first, between(random, 7, Math.floor(span))); // a week in: both codes have had a rate
    if (from === to || date > last) continue;
    const amount = (between(random, 1, 10_000_000) / 10 ** between(random, 0, 2)).toString();
    paths.push(`/convert?from=${from}&to=${to}&amount=${amount}&date=${date}`);
  }
  return paths;
}

/** `/averages`: a custom range from a stored day, 0 to 365 days long, every code or 1 to 3 symbols, by month now and then. */
function averagesPaths(count: number): string[] {
  const random = seededRandom(4);
  return Array.from({ length: count }, () => {
    const start = pick(random, HISTORY_DAYS).date;
    const end = addDays(start, between(random, 0, 365));
    const symbols =
      between(random, 0, 3) === 0
        ? ''
        : `&symbols=${[...new Set(Array.from({ length: between(random, 1, 3) }, () => pick(random, PUBLISHED_CODES)))].join(',')}`;
    return `/averages?start_date=${start}&end_date=${end}${symbols}${between(random, 0, 4) === 0 ? '&interval=month' : ''}`;
  });
}

/** The newest financial year (1 July to 30 June) that ends on or before `date`: `FY2025`. */
function financialYearBefore(date: string): string {
  const year = Number(date.slice(0, 4));
  return `FY${date.slice(5) >= '06-30' ? year : year - 1}`;
}

/** One of each in turn: `/{date}`, `/timeseries`, dated `/convert`. */
function mixedPaths(count: number): string[] {
  const each = Math.ceil(count / 3);
  const sources = [datePaths(each), timeseriesPaths(each), convertPaths(each)];
  return Array.from({ length: count }, (_, i) => sources[i % 3]![Math.floor(i / 3)]!);
}

/** A REST request of the targets above as the MCP tool call that twins it (src/mcp/tools.ts). */
function toolCallOf(path: string, id: number): string {
  const url = new URL(path, 'http://bench');
  const query = Object.fromEntries(url.searchParams);
  const call = (name: string, args: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
  if (url.pathname === '/timeseries') return call('get_timeseries', { ...query, symbols: query.symbols!.split(',') });
  if (url.pathname === '/convert') return call('convert', query);
  if (url.pathname === '/latest') return call('get_latest_rates', {});
  return call('get_rates_for_date', { date: url.pathname.slice(1) });
}

const isSuccess = (body: SampleBody) => expect(body.success === true, `not a success: ${JSON.stringify(body).slice(0, 200)}`);

export function targetsFor(info: ServersInfo): Target[] {
  const keyed = { Authorization: `Bearer ${info.key}` };
  const yearBefore = addDays(info.lastDate, -364);
  const isLatest = (body: SampleBody) => {
    expect(body.date === info.lastDate, `latest date is ${String(body.date)}, expected ${info.lastDate}`);
    const codes = Object.keys(HISTORY_DAYS.at(-1)!.rates).length;
    expect(Object.keys(body.rates ?? {}).length === codes, `latest has ${Object.keys(body.rates ?? {}).length} rates, expected ${codes}`);
  };
  const mcp = { ...keyed, Accept: 'application/json, text/event-stream', 'Content-Type': 'application/json', 'Mcp-Protocol-Version': '2025-06-18' };
  const varied = (name: string, paths: string[]): Target => ({ name, url: `${info.serviceUrl}${paths[0]}`, paths, headers: keyed, check: isSuccess });
  return [
    {
      name: 'bare node:http',
      url: `${info.bareUrl}/latest`,
      headers: {},
      baseline: true,
      check: (body) => expect(body.success === true, 'bare body is not {success:true,…}'),
    },
    {
      name: '/symbols',
      url: `${info.serviceUrl}/symbols`,
      headers: {},
      check: (body) => expect(body.success === true && body.count === 21, `expected 21 symbols, got ${String(body.count)}`),
    },
    {
      name: '/latest (keyed)',
      url: `${info.serviceUrl}/latest`,
      headers: keyed,
      check: isLatest,
    },
    {
      // Many customers at once, as on a busy day: no two connections' requests share a grant.
      name: '/latest (a key per connection)',
      url: `${info.serviceUrl}/latest`,
      headers: keyed,
      connectionHeaders: info.accountKeys.map((key) => ({ Authorization: `Bearer ${key}` })),
      check: isLatest,
    },
    {
      name: '/timeseries 365d (keyed)',
      url: `${info.serviceUrl}/timeseries?start_date=${yearBefore}&end_date=${info.lastDate}`,
      headers: keyed,
      check: (body) => {
        const days = Object.keys(body.rates ?? {}).length;
        const stored = HISTORY_DAYS.filter((day) => day.date >= yearBefore).length;
        expect(days === stored, `timeseries has ${days} days, expected ${stored}`);
      },
    },
    {
      name: '/convert USD→EUR (keyed)',
      url: `${info.serviceUrl}/convert?from=USD&to=EUR&amount=100`,
      headers: keyed,
      check: (body) => expect(body.success === true && typeof body.result === 'number' && body.free === undefined, 'unexpected /convert body'),
    },
    {
      name: '/averages FY, every code (keyed)',
      url: `${info.serviceUrl}/averages?period=${financialYearBefore(info.lastDate)}`,
      headers: keyed,
      check: (body) => expect(Object.keys(body.rates ?? {}).length >= 19, `averages has ${Object.keys(body.rates ?? {}).length} codes`),
    },
    varied('/{date} varied (keyed)', datePaths(VARIED_REQUESTS)),
    varied('/timeseries varied (keyed)', timeseriesPaths(VARIED_REQUESTS)),
    varied('/convert dated varied (keyed)', convertPaths(VARIED_REQUESTS)),
    varied('mix of the three varied (keyed)', mixedPaths(VARIED_REQUESTS)),
    varied('/averages custom ranges varied (keyed)', averagesPaths(VARIED_REQUESTS)),
    { name: 'MCP tools/call get_latest_rates', url: `${info.serviceUrl}/mcp`, bodies: [toolCallOf('/latest', 1)], headers: mcp, check: isLatest },
    {
      name: 'MCP tool calls varied (the mix as tools)',
      url: `${info.serviceUrl}/mcp`,
      bodies: mixedPaths(VARIED_REQUESTS).map(toolCallOf),
      headers: mcp,
      check: isSuccess,
    },
  ];
}

const PREFLIGHT_VARIED = 200;

/** One request per target before the load (the first 200 of a varied one): status 200, JSON content type and a plausible body. */
export async function preflight(target: Target): Promise<{ bytes: number; contentType: string | null }> {
  const origin = new URL(target.url).origin;
  const sent: { url: string; body?: string }[] = target.bodies
    ? target.bodies.slice(0, PREFLIGHT_VARIED).map((body) => ({ url: target.url, body }))
    : (target.paths?.slice(0, PREFLIGHT_VARIED).map((path) => `${origin}${path}`) ?? [target.url]).map((url) => ({ url }));
  let first: { bytes: number; contentType: string | null } | undefined;
  for (const { url, body } of sent) {
    const response = await fetch(url, body === undefined ? { headers: target.headers } : { method: 'POST', headers: target.headers, body });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`${target.name}: ${url} answered ${response.status}: ${text.slice(0, 300)}`);
    const parsed = JSON.parse(text) as SampleBody & { result?: { structuredContent?: SampleBody } };
    target.check(body === undefined ? parsed : (parsed.result?.structuredContent ?? {}));
    first ??= { bytes: Buffer.byteLength(text), contentType: response.headers.get('content-type') };
  }
  return first!;
}
