// `npm run bench`: load-tests the real service against a bare node:http baseline, then measures a
// webhook publication fanned out to 2,000 subscriptions, and prints a report.
//
// Phase 1, HTTP targets: autocannon against the service and the bare baseline (bench/load.ts), with
// the service's shared answers (identical requests share one for a second) on, then off. The rates
// are every business day from 2018 (bench/fixtures.ts); besides fixed requests, varied targets send
// seeded random `/{date}`, `/timeseries` (1–90 days, 1–3 symbols) and dated `/convert` requests,
// each alone and mixed (bench/targets.ts).
// Phase 2, webhook deliveries (bench/deliveries.ts): the real app in this process, on the same
// storage choice, with 2,000 subscriptions (40 Enterprise accounts x 50) pointing at a local HTTPS
// receiver in a child process (bench/receiver.ts) that checks every signature. Timed: the import
// transaction that records the 2,000 deliveries, then app.deliveries.runDue() until all are
// recorded; printed: both times, deliveries per second, per-attempt and publication-to-arrival
// p50/p99, and the target (all 2,000 within 20 s).
// Phase 3, the cluster (bench/cluster.ts, Postgres only): the reference deployment with 1 and 3
// processes behind HAProxy, measured through the balancer, and the quota grant statement alone.
//
//   BENCH_DURATION=<s>        measured seconds per target (default 5; e.g. 30 for steadier figures)
//   BENCH_WARMUP=<s>          warm-up seconds per target, not measured (default 2)
//   BENCH_ROUNDS=<n>          measure every target n times, each time against its own bare run, the
//                             targets taking turns (default 1); a goal is judged on the round with the
//                             median share, and the report lists every round's share
//   BENCH_CONNECTIONS=<n>     concurrent connections (default 50)
//   BENCH_MODE=child|inprocess|both
//                             where the servers run: in a child process (default; the load generator
//                             keeps this process's event loop to itself), in this process, or both
//   BENCH_SHARED_ANSWERS=on|off|both
//                             the service's shared answers for identical requests (default both)
//   BENCH_RATES_FILE=<path>   serve this RBA file (F11.1 CSV or .xls) instead of the generated history
//   BENCH_DATABASE_URL=postgres://…   a Postgres server to create (and drop) a bench_<random> database on;
//                             without it, embedded PGlite in a temporary directory
//   BENCH_ONLY=<text>         measure only the targets whose name contains <text> (and the bare baseline);
//                             every target is still checked once before the load; the delivery phase is
//                             then skipped. BENCH_ONLY=deliveries runs the delivery phase alone
//   BENCH_CPU_PROF=<dir>      child mode: write a CPU profile of the server process to <dir>, keeping its
//                             bundle in dist/bench-<pid>/ for bench/profile-sources.ts (the delivery
//                             phase runs in this process: `node --cpu-prof --import tsx bench/run.ts`)
//   BENCH_DELIVERIES=<n>      subscriptions in the delivery phase (default 2000; the target is for 2000)
//   BENCH_ONLY=analytics      the analytics phase alone (bench/analytics.ts): the saved operations of
//                             docs/operations timed over a generated year of usage for 10,000 accounts
//   BENCH_ANALYTICS_RUNS=<n>  timed runs of each operation in the analytics phase (default 9)
//   BENCH_ONLY=cluster        the cluster phase alone (bench/cluster.ts): 1 and 3 processes of the built
//                             service behind HAProxy on a BENCH_DATABASE_URL database, keyed /latest
//                             through the balancer; req/s and the database's commits per second; then
//                             the quota grant statement alone from 1, 2, 4 and 8 connections, grants
//                             and units per second. It also runs after the other phases whenever
//                             BENCH_DATABASE_URL is set
//
// Exits 0 when goals are missed (it is a report); exits 1 when any target answered non-2xx or failed,
// or when a delivery was not delivered or arrived with a wrong signature.
import { benchAnalytics } from './analytics.js';
import { benchCluster } from './cluster.js';
import { startServersInChild } from './child.js';
import { abortDeliveries, benchDeliveries } from './deliveries.js';
import { numberFromEnv } from './env.js';
import { measure, type LoadOptions, type Measurement } from './load.js';
import { printReport } from './report.js';
import { startServers, type RunningServers } from './servers.js';
import { preflight, targetsFor } from './targets.js';

type Mode = 'child' | 'inprocess';

function sharedAnswerModes(): boolean[] {
  const mode = process.env.BENCH_SHARED_ANSWERS ?? 'both';
  if (mode === 'on' || mode === 'off') return [mode === 'on'];
  if (mode === 'both') return [true, false];
  throw new Error(`BENCH_SHARED_ANSWERS must be on, off or both, got ${JSON.stringify(mode)}`);
}

function modes(): Mode[] {
  const mode = process.env.BENCH_MODE ?? 'child';
  if (mode === 'child' || mode === 'inprocess') return [mode];
  if (mode === 'both') return ['child', 'inprocess'];
  throw new Error(`BENCH_MODE must be child, inprocess or both, got ${JSON.stringify(mode)}`);
}

const MODE_LABEL: Record<Mode, string> = {
  child: 'servers in a child process, autocannon in this one',
  inprocess: 'servers and autocannon in this one process (shared event loop)',
};

let running: RunningServers | null = null;

async function benchOnce(
  mode: Mode,
  sharedAnswers: boolean,
  options: Omit<LoadOptions, 'serverPid'>,
  rounds: number,
): Promise<{ failedTargets: string[]; results: Measurement[] }> {
  console.log(`\n=== ${MODE_LABEL[mode]}; shared answers ${sharedAnswers ? 'on' : 'off'} ===`);
  const started = Date.now();
  running = mode === 'child' ? await startServersInChild(sharedAnswers) : await startServers(sharedAnswers);
  const { info } = running;
  console.log(`storage: ${info.storage}`);
  console.log(`rates: ${info.source}: ${info.days} business days ${info.firstDate}..${info.lastDate}, ${info.values.toLocaleString('en-US')} values`);
  const heap = info.historyHeapBytes === null ? 'heap not measured' : `${(info.historyHeapBytes / 2 ** 20).toFixed(1)} MiB of heap`;
  console.log(
    `history read into memory in ${info.historyLoadMs.toFixed(0)} ms (${heap}); server pid ${info.pid}; ready in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );

  const targets = targetsFor(info);
  const sizes = new Map<string, { bytes: number; contentType: string | null }>();
  for (const target of targets) sizes.set(target.name, await preflight(target));
  const bare = sizes.get('bare node:http')!;
  const latest = sizes.get('/latest (keyed)')!;
  if (bare.bytes !== latest.bytes || bare.contentType !== latest.contentType) {
    throw new Error(`bare body (${bare.bytes} B, ${bare.contentType}) differs from /latest's (${latest.bytes} B, ${latest.contentType})`);
  }
  console.log(`body bytes: ${targets.map((t) => `${t.name} ${sizes.get(t.name)!.bytes}`).join(', ')}`);
  console.log(
    `load: ${options.connections} connections, ${options.warmup} s warm-up + ${options.duration} s measured per target` +
      (rounds > 1 ? `, ${rounds} rounds` : '') +
      '\n',
  );

  const only = process.env.BENCH_ONLY;
  const load = { ...options, serverPid: info.pid };
  const bareTarget = targets.find((t) => t.baseline)!;
  const results: Measurement[] = [];
  // This machine's speed drifts from one minute to the next (the bare server alone measured from
  // 26k to 51k req/s within one hour), so a share taken of one bare run minutes earlier moves with
  // the drift. Each target is compared with a bare run measured just before it instead; with
  // several rounds the targets take turns, so a slow minute falls on one round of each.
  for (let round = 1; round <= rounds; round++) {
    for (const target of targets) {
      if (target.baseline || (only && !target.name.includes(only))) continue;
      const bare = await measure(bareTarget, load);
      results.push({ ...(await measure(target, load)), bare, round });
    }
  }
  const { failedTargets } = printReport(results);

  const closing = running;
  running = null;
  await closing.close();
  return { failedTargets, results };
}

async function main(): Promise<number> {
  const options: Omit<LoadOptions, 'serverPid'> = {
    connections: numberFromEnv('BENCH_CONNECTIONS', 50),
    duration: numberFromEnv('BENCH_DURATION', 5),
    warmup: numberFromEnv('BENCH_WARMUP', 2, true),
  };
  const rounds = numberFromEnv('BENCH_ROUNDS', 1);
  if (!Number.isInteger(rounds)) throw new Error(`BENCH_ROUNDS must be a whole number, got ${rounds}`);
  const only = process.env.BENCH_ONLY;
  if (only === 'analytics') {
    await benchAnalytics(numberFromEnv('BENCH_ANALYTICS_RUNS', 9));
    return 0;
  }
  if (only === 'cluster') return (await benchCluster(options)) ? 0 : 1;
  const deliveriesOnly = only === 'deliveries';
  const subscriptions = numberFromEnv('BENCH_DELIVERIES', 2_000);
  if (!Number.isInteger(subscriptions)) throw new Error(`BENCH_DELIVERIES must be a whole number, got ${subscriptions}`);
  const failed: string[] = [];
  if (!deliveriesOnly) {
    for (const mode of modes()) {
      for (const sharedAnswers of sharedAnswerModes()) {
        const { failedTargets } = await benchOnce(mode, sharedAnswers, options, rounds);
        failed.push(...failedTargets.map((t) => `${t} (${mode}, shared answers ${sharedAnswers ? 'on' : 'off'})`));
      }
    }
  }
  if (failed.length > 0) {
    console.error(`\n!!! FAILED: non-2xx answers or errors from ${failed.join(', ')} — the figures above are not valid !!!`);
  }
  let deliveriesOk = true;
  if (!only || deliveriesOnly) deliveriesOk = await benchDeliveries({ subscriptions });
  const clusterOk = only ? true : await benchCluster(options);
  return failed.length > 0 || !deliveriesOk || !clusterOk ? 1 : 0;
}

process.on('SIGINT', () => {
  void Promise.allSettled([running?.close(), abortDeliveries()]).finally(() => process.exit(130));
});

main().then(
  (code) => process.exit(code),
  async (error: unknown) => {
    console.error('\nbench failed:', error);
    await running?.close().catch((e: unknown) => console.error('cleanup failed:', e));
    await abortDeliveries().catch((e: unknown) => console.error('cleanup failed:', e));
    process.exit(1);
  },
);
