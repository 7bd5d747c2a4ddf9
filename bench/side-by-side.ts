// `npx tsx bench/side-by-side.ts <other tree>`: this tree's service against another tree's (an
// earlier commit checked out with `git worktree add`), each started twice as `npm run bench` starts
// it, and the targets sent in short slices with the four services taking turns in a shuffled order.
// A slow minute then falls on every service alike, and the two copies of one tree show how far the
// same code differs from itself. Prints per target, as medians over the slices of the server CPU
// per answer: this tree against the other, the two copies of each tree against each other, and
// each service alone.
//
//   BENCH_SLICES=<n>      slices per target (default 20)
//   BENCH_SLICE=<s>       seconds per slice (default 1.5)
//   BENCH_ONLY=<a>|<b>    the targets whose names contain <a> or <b> (default: the fixed keyed
//                         targets and the varied ones of bench/targets.ts)
//   BENCH_CONNECTIONS=<n> concurrent connections (default 50)
// The other tree needs its own `npm ci` and a bench/child.ts that starts its servers in a child.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { seededRandom } from '../test/support/random.js';
import { startServersInChild } from './child.js';
import { numberFromEnv } from './env.js';
import { measure, serverMicrosPerRequest } from './load.js';
import type { RunningServers } from './servers.js';
import { targetsFor, type Target } from './targets.js';

const DEFAULT_TARGETS = '/latest (keyed)|/convert USD→EUR|/{date} varied|/timeseries varied|/convert dated varied|mix of the three varied';

const other = process.argv[2];
if (!other) throw new Error('usage: npx tsx bench/side-by-side.ts <the other tree>');
const slices = numberFromEnv('BENCH_SLICES', 20);
const seconds = numberFromEnv('BENCH_SLICE', 1.5);
const connections = numberFromEnv('BENCH_CONNECTIONS', 50);
const names = (process.env.BENCH_ONLY ?? DEFAULT_TARGETS).split('|');

const { startServersInChild: startOther } = (await import(pathToFileURL(resolve(other, 'bench/child.ts')).href)) as {
  startServersInChild: typeof startServersInChild;
};
const services: { label: string; running: RunningServers; targets: Target[] }[] = [];
for (const [label, start] of [
  ['other', startOther],
  ['this', startServersInChild],
  ['other 2', startOther],
  ['this 2', startServersInChild],
] as const) {
  const running = await start(true);
  services.push({ label, running, targets: targetsFor(running.info) });
}

/** Server CPU µs per answer of one slice of `name` against `service`. */
async function slice(name: string, { running, targets }: (typeof services)[number], duration: number): Promise<number> {
  const target = targets.find((t) => t.name.includes(name));
  if (!target) throw new Error(`no target named like ${JSON.stringify(name)}`);
  const m = await measure(target, { connections, duration, warmup: 0, serverPid: running.info.pid });
  const micros = serverMicrosPerRequest(m);
  if (m.non2xx || m.errors || micros === null) throw new Error(`${name}: ${JSON.stringify(m.statusCodes)}, ${m.errors} errors`);
  return micros;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

try {
  for (const name of names) for (const service of services) await slice(name, service, 2); // warm-up
  const random = seededRandom(1);
  const cpu = new Map(names.map((name) => [name, new Map(services.map((s) => [s.label, [] as number[]]))]));
  for (let i = 0; i < slices; i++) {
    for (const name of names) {
      const order = services.map((s) => ({ s, key: random() })).sort((a, b) => a.key - b.key);
      const of = cpu.get(name)!;
      for (const { s } of order) of.get(s.label)!.push(await slice(name, s, seconds));
    }
    process.stdout.write(`slice ${i + 1}/${slices}\r`);
  }
  console.log(`\nserver CPU µs per answer, medians of ${slices} slices of ${seconds} s; ratios are medians of per-slice ratios`);
  for (const name of names) {
    const of = cpu.get(name)!;
    const ratio = (a: string, b: string) => median(of.get(a)!.map((v, i) => v / of.get(b)![i]!)).toFixed(3);
    const pooled = median(of.get('this')!.map((v, i) => (v + of.get('this 2')![i]!) / (of.get('other')![i]! + of.get('other 2')![i]!)));
    const each = services.map((s) => `${s.label} ${median(of.get(s.label)!).toFixed(1)}`).join(', ');
    console.log(`${name}: this/other ${pooled.toFixed(3)} (copies of other ${ratio('other 2', 'other')}, of this ${ratio('this 2', 'this')}); ${each}`);
  }
} finally {
  for (const { running } of services) await running.close();
}
