// One autocannon measurement: a warm-up whose figures are thrown away, then the measured run.
import autocannon from 'autocannon';
import { cpuShare } from './cpu.js';
import type { Target } from './targets.js';

export interface LoadOptions {
  connections: number;
  /** seconds */
  duration: number;
  /** seconds */
  warmup: number;
  /** the process the servers run in (may be this one) */
  serverPid: number;
}

export interface Measurement {
  target: Target;
  requests: number;
  reqPerSec: number;
  p50: number;
  p99: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** share of one core the server process used while measured (null: unknown or this process) */
  serverCpu: number | null;
  /** share of one core this process (autocannon, and the servers when in-process) used */
  loaderCpu: number;
  /** the bare server measured just before this target, which its share is taken of */
  bare?: Measurement;
  /** which round of the target this is (BENCH_ROUNDS), from 1 */
  round?: number;
}

/** The server's CPU time per answer in µs (null: unknown, or the server shares this process). */
export const serverMicrosPerRequest = (m: Measurement): number | null => (m.serverCpu === null || m.reqPerSec === 0 ? null : (m.serverCpu * 1e6) / m.reqPerSec);

function run(target: Target, connections: number, duration: number): Promise<autocannon.Result> {
  const { headers, connectionHeaders } = target;
  if (!target.paths && !target.bodies && !connectionHeaders) return autocannon({ url: target.url, headers, connections, duration, timeout: 10 });
  const url = new URL(target.url);
  const paths = target.paths ?? [url.pathname + url.search];
  // an MCP target POSTs its messages in turn to its one path
  const requests = target.bodies
    ? target.bodies.map((body) => ({ method: 'POST' as const, path: paths[0]!, body }))
    : paths.map((path) => ({ method: 'GET' as const, path }));
  // A varied target: connection k sends paths k, k + connections, k + 2 × connections, … in turn,
  // so every connection sends requests of its own and together they send every path. Each request
  // is written once, before the load: built anew for every request (autocannon's setupRequest),
  // it cost the load generator 30–43 µs a request against 19.8 for a fixed one, measured against
  // the bare server, and that cost fell on the varied targets alone, on the same two cores.
  const ofConnection = Array.from({ length: connections }, (_, k) => {
    const own = connectionHeaders ? connectionHeaders[k % connectionHeaders.length]! : headers;
    const mine = requests.length === 1 ? requests : requests.filter((_, i) => i % connections === k);
    return mine.map((request) => ({ ...request, headers: own }));
  });
  let connection = 0;
  return autocannon({
    url: url.origin,
    headers,
    connections,
    duration,
    timeout: 10,
    setupClient: (client) => client.setRequests(ofConnection[connection++ % connections]!),
  });
}

export async function measure(target: Target, options: LoadOptions): Promise<Measurement> {
  if (options.warmup > 0) await run(target, options.connections, options.warmup);
  const inProcess = options.serverPid === process.pid;
  const serverCpu = inProcess ? () => null : cpuShare(options.serverPid);
  const loaderCpu = cpuShare(process.pid);
  const r = await run(target, options.connections, options.duration);
  const cpu = { serverCpu: serverCpu(), loaderCpu: loaderCpu() ?? 0 };
  const statusCodes = Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([code, s]) => [code, s.count ?? 0]));
  return {
    target,
    requests: r.requests.total,
    reqPerSec: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    ok: r['2xx'],
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCodes,
    ...cpu,
  };
}
