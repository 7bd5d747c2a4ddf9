// What `npm run bench` aims at. A varied target sends a different request each time, drawn from a
// seeded generator, so every run sends the same requests in the same order.
import { addDays } from '../src/domain/calendar.js';
import { PUBLISHED_CODES } from '../src/domain/currencies.js';
import { between, pick, seededRandom } from '../test/support/random.js';

export interface Request {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

export type Storage = 'pglite' | 'postgres';

export interface Target {
  name: string;
  requests: readonly Request[];
  /** the share of bare node:http it must reach, by storage (none: no floor on that storage) */
  floor?: Partial<Record<Storage, number>>;
  /** MCP calls carry the MCP headers besides the key */
  mcp?: boolean;
}

/** What the targets are drawn from: the first and last date of the RBA's file (not the synthetic history). */
export interface Stored {
  firstDate: string;
  lastDate: string;
}

const VARIED = 4_000;
// CAD has no rates in the 2023–2026 file's first months: a conversion to it there is refused (400)
const CONVERTIBLE = ['AUD', ...PUBLISHED_CODES.filter((code) => code !== 'TWI' && code !== 'CAD')];
const get = (path: string): Request => ({ method: 'GET', path });

/** A calendar date from 2023 to 2026, day 1 to 28 of its month. */
function randomDate(random: () => number): string {
  const month = String(between(random, 1, 12)).padStart(2, '0');
  const day = String(between(random, 1, 28)).padStart(2, '0');
  return `${between(random, 2023, 2026)}-${month}-${day}`;
}

/** `/{date}`: weekends, holidays and days after the newest are 404s (about a third). */
function datePaths(count: number): Request[] {
  const random = seededRandom(1);
  return Array.from({ length: count }, () => get(`/${randomDate(random)}`));
}

/** dated `/convert`: a stored date or the weekend or holiday before one, a pair, an amount with 0 to 2 decimals. */
function convertPaths(count: number, stored: Stored): Request[] {
  const random = seededRandom(2);
  const paths: Request[] = [];
  while (paths.length < count) {
    const [from, to, date] = [pick(random, CONVERTIBLE), pick(random, CONVERTIBLE), randomDate(random)];
    if (from === to || date < addDays(stored.firstDate, 7) || date > stored.lastDate) continue;
    const amount = (between(random, 1, 10_000_000) / 10 ** between(random, 0, 2)).toString();
    paths.push(get(`/convert?from=${from}&to=${to}&amount=${amount}&date=${date}`));
  }
  return paths;
}

/** `/timeseries`: 1 to 90 days from a stored date, 1 to 3 symbols. */
function timeseriesPaths(count: number, stored: Stored): Request[] {
  const random = seededRandom(3);
  const paths: Request[] = [];
  while (paths.length < count) {
    const start = randomDate(random);
    if (start < stored.firstDate || start > stored.lastDate) continue;
    const symbols = new Set(Array.from({ length: between(random, 1, 3) }, () => pick(random, PUBLISHED_CODES)));
    paths.push(get(`/timeseries?start_date=${start}&end_date=${addDays(start, between(random, 0, 89))}&symbols=${[...symbols].join(',')}`));
  }
  return paths;
}

/** One of each in turn: `/latest`, `/{date}`, dated `/convert`, `/timeseries`, `/symbols`. */
function mixedPaths(count: number, stored: Stored): Request[] {
  const each = Math.ceil(count / 5);
  const sources = [[get('/latest')], datePaths(each), convertPaths(each, stored), timeseriesPaths(each, stored), [get('/symbols')]];
  return Array.from({ length: count }, (_, i) => {
    const source = sources[i % 5]!;
    return source[Math.floor(i / 5) % source.length]!;
  });
}

/** The headers an MCP client sends with each call, besides its key. */
export const MCP_HEADERS = { Accept: 'application/json, text/event-stream', 'Content-Type': 'application/json', 'Mcp-Protocol-Version': '2025-06-18' };

export const toolCall = (name: string, args: Record<string, unknown>): Request => ({
  method: 'POST',
  path: '/mcp',
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
});

export function targetsFor(stored: Stored): Target[] {
  return [
    { name: 'keyed /latest', requests: [get('/latest')], floor: { pglite: 0.35, postgres: 0.22 } },
    { name: 'varied mix', requests: mixedPaths(VARIED, stored), floor: { pglite: 0.15, postgres: 0.12 } },
    { name: 'dated /convert', requests: convertPaths(VARIED, stored), floor: { pglite: 0.15 } },
    { name: 'random /{date}', requests: datePaths(VARIED), floor: { pglite: 0.15 } },
    { name: 'keyed 404 /2024-01-06', requests: [get('/2024-01-06')] },
    { name: 'keyed 200 /2024-01-05', requests: [get('/2024-01-05')] },
    { name: 'MCP get_latest_rates', requests: [toolCall('get_latest_rates', {})], mcp: true },
    { name: 'its twin, keyed /latest', requests: [get('/latest')] },
  ];
}

/** The pairs compared by the server's CPU per request: [the one, the other, the most the one may cost per the other's]. */
export const MCP_PAIR: readonly [string, string, number] = ['MCP get_latest_rates', 'its twin, keyed /latest', 2.5];
export const CPU_PAIRS: readonly (readonly [string, string, number])[] = [['keyed 404 /2024-01-06', 'keyed 200 /2024-01-05', 1], MCP_PAIR];
