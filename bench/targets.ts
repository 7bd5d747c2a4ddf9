// What is measured: each target's URL and headers, and a check of one answer before the load.
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
  url: string;
  headers: Record<string, string>;
  /** true for the baseline the others are compared with */
  baseline?: boolean;
  /** throws when a sample answer is not what a correct service sends */
  check(body: SampleBody): void;
}

function expect(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

export function targetsFor(info: ServersInfo): Target[] {
  const keyed = { Authorization: `Bearer ${info.key}` };
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
      check: (body) => {
        expect(body.date === info.lastDate, `latest date is ${String(body.date)}, expected ${info.lastDate}`);
        expect(Object.keys(body.rates ?? {}).length === 20, `latest has ${Object.keys(body.rates ?? {}).length} rates, expected 20`);
      },
    },
    {
      name: '/timeseries 365d (keyed)',
      url: `${info.serviceUrl}/timeseries?start_date=${info.firstDate}&end_date=${info.lastDate}`,
      headers: keyed,
      check: (body) => {
        const days = Object.values(body.rates ?? {});
        expect(days.length === info.days, `timeseries has ${days.length} days, expected ${info.days}`);
        expect(days.every((d) => Object.keys(d).length === 20), 'a timeseries day lacks some of the 20 codes');
      },
    },
    {
      name: '/convert USD→EUR (keyed)',
      url: `${info.serviceUrl}/convert?from=USD&to=EUR&amount=100`,
      headers: keyed,
      check: (body) => expect(body.success === true && typeof body.result === 'number' && body.free === undefined, 'unexpected /convert body'),
    },
  ];
}

/** One request per target before the load: status 200, JSON content type and a plausible body. */
export async function preflight(target: Target): Promise<{ bytes: number; contentType: string | null }> {
  const response = await fetch(target.url, { headers: target.headers });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${target.name} answered ${response.status}: ${text.slice(0, 300)}`);
  target.check(JSON.parse(text) as SampleBody);
  return { bytes: Buffer.byteLength(text), contentType: response.headers.get('content-type') };
}
