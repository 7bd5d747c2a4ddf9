// The printed report: a table of the measurements and the pass/MISSED line of each target.
import { serverMicrosPerRequest, type Measurement } from './load.js';

export interface Goal {
  description: string;
  /** the targets the goal needs; the goal is skipped when one was not measured (BENCH_ONLY) */
  needs: string[];
  /** `byName`: the target's round with the median share (its only one without BENCH_ROUNDS) */
  met: (byName: (name: string) => Measurement) => { met: boolean; actual: string };
}

/** the target's req/s as a share of the bare run measured just before it */
const pct = (m: Measurement) => (m.bare && m.bare.reqPerSec > 0 ? (100 * m.reqPerSec) / m.bare.reqPerSec : 0);

/** A target at `percent` of the bare server's req/s, and with p99 under `p99Ms` when given. */
const share = (name: string, percent: number, p99Ms?: number): Goal => ({
  description: `${name} >= ${percent}% of bare req/s${p99Ms === undefined ? '' : `, with p99 < ${p99Ms} ms`}`,
  needs: [name],
  met: (get) => {
    const m = get(name);
    const ratio = pct(m);
    return { met: ratio >= percent && (p99Ms === undefined || m.p99 < p99Ms), actual: `${ratio.toFixed(1)}% of bare, p99 ${m.p99} ms` };
  },
});

export const GOALS: Goal[] = [
  share('/latest (keyed)', 50),
  share('mix of the three varied (keyed)', 25, 20),
  share('/convert dated varied (keyed)', 20),
  {
    description: 'keyed /timeseries (365 days, all codes) p50 < 20 ms',
    needs: ['/timeseries 365d (keyed)'],
    met: (get) => {
      const m = get('/timeseries 365d (keyed)');
      return { met: m.p50 < 20, actual: `p50 ${m.p50} ms` };
    },
  },
];

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  return [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

/** Prints the table and goals; returns the names of targets that had non-2xx answers or errors. */
export function printReport(results: Measurement[]): { failedTargets: string[]; missedGoals: number } {
  const inProcess = results.every((m) => m.serverCpu === null);
  const cpu = (share: number | null) => (share === null ? '-' : `${(100 * share).toFixed(0)}%`);
  // CPU per request depends less on what else the machine runs than req/s and shares do (though
  // the same code has measured from 95 to 183 µs a request within an hour on this machine).
  const perRequest = (m: Measurement) => serverMicrosPerRequest(m)?.toFixed(0) ?? '-';
  // The load generator's own CPU per request: it parses every answer's headers, so a service whose
  // answers carry more headers costs it more than the bare server does, on the same two cores.
  const loaderPerRequest = (m: Measurement) => (m.reqPerSec === 0 ? '-' : ((m.loaderCpu * 1e6) / m.reqPerSec).toFixed(0));
  const rounds = Math.max(...results.map((m) => m.round ?? 1));
  const rows = [
    [
      'target',
      ...(rounds > 1 ? ['round'] : []),
      'req/s (avg)',
      'p50 ms',
      'p99 ms',
      'bare req/s',
      'vs bare',
      'requests',
      'non-2xx',
      'errors',
      'server cpu',
      'server µs/req',
      inProcess ? 'process cpu' : 'autocannon cpu',
      ...(inProcess ? [] : ['autocannon µs/req']),
    ],
  ];
  for (const m of results) {
    rows.push([
      m.target.name,
      ...(rounds > 1 ? [String(m.round ?? 1)] : []),
      m.reqPerSec.toFixed(0),
      String(m.p50),
      String(m.p99),
      m.bare ? m.bare.reqPerSec.toFixed(0) : '-',
      `${pct(m).toFixed(1)}%`,
      String(m.requests),
      String(m.non2xx),
      String(m.errors),
      cpu(m.serverCpu),
      perRequest(m),
      cpu(m.loaderCpu),
      ...(inProcess ? [] : [loaderPerRequest(m)]),
    ]);
  }
  console.log(table(rows));
  const bareRuns = results.flatMap((m) => (m.bare ? [m.bare] : []));
  const bareCpu = bareRuns.map(serverMicrosPerRequest).filter((v) => v !== null);
  const bareLoader = bareRuns.map((b) => (b.loaderCpu * 1e6) / b.reqPerSec);
  const range = (values: number[]) => `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}`;
  console.log(
    `(bare: measured just before each target, ${range(bareRuns.map((b) => b.reqPerSec))} req/s` +
      (bareCpu.length ? `, ${range(bareCpu)} server µs/req, ${range(bareLoader)} autocannon µs/req)` : ')'),
  );
  console.log(
    inProcess
      ? '(cpu: share of one core used by this process, servers and autocannon together; 2 cores)'
      : '(cpu: share of one core used while measured; near 100% marks the side that was the limit)',
  );

  const failed = (m: Measurement) => m.non2xx > 0 || m.errors > 0 || m.ok === 0;
  const failedTargets = [...bareRuns.filter(failed).slice(0, 1), ...results.filter(failed)].map((m) => m.target.name);
  for (const m of [...bareRuns, ...results].filter(failed)) {
    console.log(`  !!! NOT ALL 200: ${m.target.name}: status codes ${JSON.stringify(m.statusCodes)}, ${m.errors} errors (${m.timeouts} timeouts)`);
  }

  console.log('');
  const roundsOf = (name: string) => results.filter((r) => r.target.name === name);
  /** the round with the median share (the lower of the middle two for an even count) */
  const byName = (name: string) => {
    const sorted = roundsOf(name).sort((a, b) => pct(a) - pct(b));
    if (sorted.length === 0) throw new Error(`no measurement named ${name}`);
    return sorted[(sorted.length - 1) >> 1]!;
  };
  const everyShare = (names: string[]) =>
    rounds > 1
      ? `; rounds: ${names
          .map((name) =>
            roundsOf(name)
              .map((m) => `${pct(m).toFixed(1)}%`)
              .join(', '),
          )
          .join(' | ')}`
      : '';
  let missedGoals = 0;
  for (const goal of GOALS) {
    if (!goal.needs.every((name) => results.some((r) => r.target.name === name))) {
      console.log(`${'SKIPPED'.padEnd(7)}  ${goal.description}  (not measured)`);
      continue;
    }
    const { met, actual } = goal.met(byName);
    const invalid = goal.needs.some((name) => failedTargets.includes(name) || roundsOf(name).some((m) => m.bare && failed(m.bare)));
    if (!met || invalid) missedGoals++;
    const verdict = invalid ? 'INVALID' : met ? 'MET' : 'MISSED';
    const median = rounds > 1 ? `median of ${rounds} rounds: ` : '';
    console.log(`${verdict.padEnd(7)}  ${goal.description}  (${median}${actual}${everyShare(goal.needs)}${invalid ? '; non-2xx answers or errors' : ''})`);
  }
  return { failedTargets, missedGoals };
}
