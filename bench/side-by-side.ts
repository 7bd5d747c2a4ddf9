// `npx tsx bench/side-by-side.ts <tree> [<tree> …]`: this tree's service against other trees'
// (earlier commits checked out with `git worktree add`), each started several times as `npm run
// bench` starts it, and the targets sent in short slices with the services taking turns in a
// shuffled order. A slow minute then falls on every service alike. Two processes of the same code
// can differ by several percent for as long as they run, so a tree is measured as several
// processes, and how far each one lies from its tree's mean is printed beside the result. Prints
// per target and tree: its server CPU per answer against the first tree named's and against the
// tree named before it (this tree comes last), as the median over the slices and the interval that
// median lies in 95 times in 100; that spread; and each service's median. Last, each service's
// process id and the answers its measured slices got, for bench/profile-sources.ts when
// BENCH_CPU_PROF is set.
//
//   BENCH_SLICES=<n>      slices per target (default 20)
//   BENCH_SLICE=<s>       seconds per slice (default 1.5)
//   BENCH_ONLY=<a>|<b>    the targets whose names contain <a> or <b> (default: the fixed keyed
//                         targets and the varied ones of bench/targets.ts)
//   BENCH_CONNECTIONS=<n> concurrent connections (default 50)
//   BENCH_COPIES=<n>      services of each tree (default 2)
// Each other tree needs its own `npm ci` and a bench/child.ts that starts its servers in a child.
import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { seededRandom } from '../test/support/random.js';
import { startServersInChild } from './child.js';
import { numberFromEnv } from './env.js';
import { measure, serverMicrosPerRequest } from './load.js';
import type { RunningServers } from './servers.js';
import { targetsFor, type Target } from './targets.js';

const DEFAULT_TARGETS = '/latest (keyed)|/convert USD→EUR|/{date} varied|/timeseries varied|/convert dated varied|mix of the three varied';

const others = process.argv.slice(2);
if (others.length === 0) throw new Error('usage: npx tsx bench/side-by-side.ts <another tree> [<another tree> …]');
const slices = numberFromEnv('BENCH_SLICES', 20);
const seconds = numberFromEnv('BENCH_SLICE', 1.5);
const connections = numberFromEnv('BENCH_CONNECTIONS', 50);
const names = (process.env.BENCH_ONLY ?? DEFAULT_TARGETS).split('|');
const copies = numberFromEnv('BENCH_COPIES', 2);

type Start = typeof startServersInChild;
interface Tree {
  name: string;
  start: Start;
  services: Service[];
}
interface Service {
  label: string;
  running: RunningServers;
  targets: Target[];
  /** answers of the measured slices, all targets */
  answers: number;
}

const trees: Tree[] = [];
for (const path of others) {
  const { startServersInChild: start } = (await import(pathToFileURL(resolve(path, 'bench/child.ts')).href)) as { startServersInChild: Start };
  trees.push({ name: basename(resolve(path)), start, services: [] });
}
trees.push({ name: 'this', start: startServersInChild, services: [] });
for (let copy = 1; copy <= copies; copy++) {
  for (const tree of trees) {
    const running = await tree.start(true);
    tree.services.push({ label: `${tree.name} ${copy}`, running, targets: targetsFor(running.info), answers: 0 });
  }
}
const services = trees.flatMap((tree) => tree.services);

/** Server CPU µs per answer of one slice of `name` against `service`. */
async function slice(name: string, service: Service, duration: number): Promise<number> {
  const { running, targets } = service;
  const target = targets.find((t) => t.name.includes(name));
  if (!target) throw new Error(`no target named like ${JSON.stringify(name)}`);
  const m = await measure(target, { connections, duration, warmup: 0, serverPid: running.info.pid });
  const micros = serverMicrosPerRequest(m);
  if (m.non2xx || m.errors || micros === null) throw new Error(`${name}: ${JSON.stringify(m.statusCodes)}, ${m.errors} errors`);
  service.answers += m.requests;
  return micros;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/**
 * Where the median of `values` lies, 95 times in 100 (a percentile bootstrap over the slices). It
 * covers how the slices scatter, not how the processes do: that spread is printed beside it.
 */
function medianInterval(values: number[]): [number, number] {
  const random = seededRandom(2);
  const medians = Array.from({ length: 2_000 }, () => median(values.map(() => values[Math.floor(random() * values.length)]!))).sort((a, b) => a - b);
  return [medians[49]!, medians[1_949]!];
}

try {
  for (const name of names) for (const service of services) await slice(name, service, 2); // warm-up
  for (const service of services) service.answers = 0;
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
  console.log(`\nserver CPU µs per answer, medians of ${slices} slices of ${seconds} s, ${copies} services of each tree`);
  for (const name of names) {
    const of = cpu.get(name)!;
    const sumOf = (tree: Tree, i: number) => tree.services.reduce((sum, s) => sum + of.get(s.label)![i]!, 0);
    /** `tree`'s CPU per answer against `base`'s: the median of the slices' ratios, and its interval */
    const against = (tree: Tree, base: Tree) => {
      const ratios = Array.from({ length: slices }, (_, i) => sumOf(tree, i) / sumOf(base, i));
      const [low, high] = medianInterval(ratios);
      return `${median(ratios).toFixed(3)} (95%: ${low.toFixed(3)}–${high.toFixed(3)})`;
    };
    // Each service's median against its tree's: how far one process of a tree differs from another.
    const spread = (tree: Tree) => {
      const medians = tree.services.map((s) => median(of.get(s.label)!));
      const mean = medians.reduce((a, b) => a + b, 0) / medians.length;
      return medians.map((m) => (m / mean).toFixed(3)).join(', ');
    };
    console.log(`${name}:`);
    trees.forEach((tree, t) => {
      const ratios =
        t === 0 ? 'the base' : `/${trees[0]!.name} ${against(tree, trees[0]!)}${t > 1 ? `, /${trees[t - 1]!.name} ${against(tree, trees[t - 1]!)}` : ''}`;
      const each = tree.services.map((s) => median(of.get(s.label)!).toFixed(1)).join(', ');
      console.log(`  ${tree.name}: ${ratios}; services ${spread(tree)} of the tree's mean; µs ${each}`);
    });
  }
  console.log(`answers of the measured slices: ${services.map((s) => `${s.label} (pid ${s.running.info.pid}) ${s.answers}`).join(', ')}`);
} finally {
  for (const { running } of services) await running.close();
}
