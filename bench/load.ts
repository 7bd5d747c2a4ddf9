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

function run(target: Target, connections: number, duration: number): Promise<autocannon.Result> {
  const { paths } = target;
  if (!paths) return autocannon({ url: target.url, headers: target.headers, connections, duration, timeout: 10 });
  // A varied target: every request takes the next of its paths, whichever connection sends it.
  let next = 0;
  const requests = [{ setupRequest: (request: autocannon.Request) => ({ ...request, path: paths[next++ % paths.length]! }) }];
  return autocannon({ url: new URL(target.url).origin, headers: target.headers, connections, duration, timeout: 10, requests });
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
