// Which of D41's endpoint names (docs/decisions.md) a recorded request counts under, for GET /usage
// (D46): the usage records name a request by its route's operation (`Latest`, `RateDay`) or an MCP
// call by its tool (`mcp:get_latest_rates`). Only what the quota counts is named: a metered route
// (a key's data requests, keyed /convert) and an MCP tool whose twin is metered.
import { endpointOf, KEY_ENDPOINTS, type KeyEndpoint } from '../key-restrictions.js';
import type { Route } from './route.js';

const MCP_PREFIX = 'mcp:';

const isMetered = (route: Pick<Route, 'auth'>) => route.auth === 'key' || route.auth === 'optional';

export interface CountedEndpoints {
  /** the metered names, in D41's order */
  names: readonly KeyEndpoint[];
  /** the name a recorded request counts under, or null when it never counts */
  readonly nameOf: (recorded: string) => KeyEndpoint | null;
}

/** The names of `table`'s metered routes, and of the MCP tools (name → twin route) whose twin is metered. */
export function countedEndpoints(table: readonly Route[], tools: readonly { name: string; twin: string }[]): CountedEndpoints {
  const byRecorded = new Map<string, KeyEndpoint>();
  for (const route of table) {
    const name = isMetered(route) ? endpointOf(route.path) : null;
    if (name) byRecorded.set(route.name, name);
  }
  for (const tool of tools) if (byRecorded.has(tool.twin)) byRecorded.set(`${MCP_PREFIX}${tool.name}`, 'mcp');
  const used = new Set(byRecorded.values());
  return { names: KEY_ENDPOINTS.filter((name) => used.has(name)), nameOf: (recorded) => byRecorded.get(recorded) ?? null };
}
