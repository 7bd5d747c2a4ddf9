// Steps run alone: a request as a transport would hand it over, an exchange around it, and a
// `next` that records that it was called (and can stand for what the rest of the pipeline does).
import { Exchange, type Next, type RestRequest } from '../../../src/rest/exchange.js';
import { routeEndpoint } from '../../../src/rest/pipeline.js';
import type { Route } from '../../../src/rest/route.js';
import { routes } from '../../../src/rest/routes.js';

export interface RequestParts {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  remoteAddress?: string;
  encrypted?: boolean;
}

export function requestOf(target: string, parts: RequestParts = {}): RestRequest {
  const headers = new Map(Object.entries(parts.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
  return {
    method: parts.method ?? 'GET',
    // as the transports read a target: a leading // is a path of empty segments, not a host
    url: new URL(`http://rates.test${target}`),
    header: (name) => headers.get(name) ?? null,
    repeated: () => false,
    body: async (limit) => {
      const text = parts.body ?? '';
      if (Buffer.byteLength(text) > limit) throw new Error(`over ${limit}`);
      return text;
    },
    remoteAddress: parts.remoteAddress ?? '127.0.0.1',
    encrypted: parts.encrypted ?? false,
    fetchRequest: null,
  };
}

export function exchangeOf(target: string, parts: RequestParts = {}): Exchange {
  return new Exchange(requestOf(target, parts), performance.now());
}

/** The table's route by name. */
export function routeNamed(name: string): Route {
  return routes.find((r) => r.name === name)!;
}

/** An exchange already routed to `name`, as the steps after the edge see it. */
export function routedExchange(name: string, target: string, parts: RequestParts = {}): Exchange {
  const exchange = exchangeOf(target, parts);
  const route = routeNamed(name);
  exchange.endpoint = routeEndpoint(route, () => Promise.resolve());
  exchange.route = route;
  exchange.template = exchange.endpoint.template;
  exchange.cors = exchange.endpoint.cors;
  return exchange;
}

/** A `next` that counts its calls and then does `then` (answer, throw, …). */
export function recordingNext(then: (exchange: Exchange) => void | Promise<void> = () => {}): Next & { calls: number } {
  const next = Object.assign(
    async (exchange: Exchange) => {
      next.calls++;
      await then(exchange);
    },
    { calls: 0 },
  );
  return next;
}

/** A `next` that answers 200 with `body`. */
export const answering = (body = '{"success":true}', status = 200) =>
  recordingNext((exchange) => {
    exchange.answer = { status, body, headers: { 'Cache-Control': 'no-store' } };
  });
