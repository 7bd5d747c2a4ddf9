// GET /usage: where the key's account stands this period, never counted (D46 in docs/decisions.md).
import { graphql } from '../../graphql.js';
import type { CountedEndpoints } from '../counted-endpoints.js';
import * as Schemas from '../openapi/schemas.js';
import { defineRoute, type Route } from '../route.js';

const USAGE = graphql(`
  query Usage {
    keyUsage {
      plan
      periodStart
      periodEnd
      limit
      used
      remaining
      keyPrefix
      monthlyCap
      capUsed
      counted {
        endpoint
        requests
        keyRequests
      }
    }
  }
`);

/**
 * The route, given how recorded requests map to endpoint names (made from the whole route table,
 * this route among it, once the table is complete).
 */
export const usage = (endpoints: () => CountedEndpoints): Route =>
  defineRoute(Schemas.UsageResponse)({
    name: 'Usage',
    method: 'GET',
    path: '/usage',
    // the account's own standing: never metered, answered with its quota spent (src/rest/limits.ts)
    auth: 'account',
    document: USAGE,
    variables: () => ({}),
    respond: ({ keyUsage: u }) => {
      const { names, nameOf } = endpoints();
      const counts = Object.fromEntries(names.map((name) => [name, 0]));
      let keyUsed = 0;
      for (const { endpoint, requests, keyRequests } of u.counted) {
        const name = nameOf(endpoint);
        if (name === null) continue;
        counts[name]! += requests;
        keyUsed += keyRequests;
      }
      return {
        body: {
          success: true,
          plan: u.plan,
          period_start: u.periodStart,
          period_end: u.periodEnd,
          limit: u.limit,
          used: u.used,
          remaining: u.remaining,
          key: { prefix: u.keyPrefix, monthly_cap: u.monthlyCap, used: u.capUsed ?? keyUsed },
          endpoints: counts,
        },
      };
    },
    doc: {
      summary: "Where the key's account stands this period",
      description:
        "The plan, the quota period (`period_end` is when the count resets: null on Free, whose allowance never does), the quota's `limit`, what is `used` and what is `remaining`: the numbers the `X-RateLimit-*` headers of a request answered just before carry (with a capped key, `remaining` is what is left of the cap when that is less). `key` is the key asking: its prefix, its monthly cap (null without one) and its use this period. `endpoints` counts this period's counted requests of each endpoint, all the account's keys together (`mcp` for the MCP tools); these come from the usage records, written every few seconds, so the last seconds' requests may not be in them yet. Never counted, answered even when the quota is spent, and allowed to every key whatever endpoints it is restricted to.",
      errors: [],
      example: {
        request: '/usage',
        response: {
          success: true,
          plan: 'business',
          period_start: '2026-05-12T00:00:00.000Z',
          period_end: '2026-06-12T00:00:00.000Z',
          limit: 500000,
          used: 42,
          remaining: 499958,
          key: { prefix: 'bondi', monthly_cap: null, used: 42 },
          endpoints: { latest: 12, historical: 9, timeseries: 7, convert: 5, fluctuation: 3, averages: 4, export: 2, mcp: 0 },
        },
        varies: [
          'used',
          'remaining',
          'period_start',
          'period_end',
          'key.prefix',
          'key.used',
          ...['latest', 'historical', 'timeseries', 'convert', 'fluctuation', 'averages', 'export', 'mcp'].map((name) => `endpoints.${name}`),
        ],
      },
    },
    cacheControl: 'no-store',
  });
