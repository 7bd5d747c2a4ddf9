// `npx tsx bench/profile-sources.ts [--last <s>] <profile> <answers> [<profile> <answers>]`: a CPU
// profile of the bench's server (BENCH_CPU_PROF) as microseconds of CPU per answer, by where the
// time went. `--last` keeps only the profile's last seconds: with one target measured, its
// BENCH_DURATION, which leaves out the server's start and the bare server's load. A
// sample in the bundle is put to the source file it was built from (`src/…`, or a package), through
// the bundle's source map, which the bench keeps while profiling; any other sample to Node's own
// code, a package loaded outside the bundle, or a native function (the socket writes, GC). The
// answers are the target's `requests` in the bench's table. With two profiles (before, after), each
// line shows both and the difference, largest differences first.
import { readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  /** microseconds */
  startTime: number;
  endTime: number;
}

const maps = new Map<string, SourceMap | null>();

function sourceMapOf(url: string): SourceMap | null {
  let map = maps.get(url);
  if (map === undefined) {
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${fileURLToPath(url)}.map`, 'utf8')) as SourceMapPayload);
    } catch {
      map = null; // the bundle is gone: its samples stay unnamed
    }
    maps.set(url, map);
  }
  return map;
}

/** A package's name, from a path through node_modules. */
const packageIn = (path: string) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1];

function placeOf({ functionName, url, lineNumber, columnNumber }: ProfileNode['callFrame']): string {
  if (url === '') return `(${functionName.replace(/^\((.*)\)$/, '$1') || 'native'})`;
  if (url.startsWith('node:')) return 'node';
  if (url.startsWith('wasm:')) return 'WebAssembly (PGlite)';
  if (url.includes('/dist/bench-')) {
    const entry = sourceMapOf(url)?.findEntry(lineNumber, columnNumber);
    const source = entry && 'originalSource' in entry ? entry.originalSource : undefined;
    if (!source) return 'the bundle (unmapped)';
    const bundled = packageIn(source);
    return bundled ? `${bundled} (bundled)` : source.replace(/^.*?\/(src|bench)\//, '$1/');
  }
  return packageIn(url) ?? url;
}

/** Microseconds of CPU per answer, by place; time the process spent idle is left out. */
function perAnswer(file: string, answers: number, lastSeconds: number | null): Map<string, number> {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const from = lastSeconds === null ? -Infinity : profile.endTime - lastSeconds * 1e6;
  const selfTime = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i]!;
    if (at >= from) selfTime.set(id, (selfTime.get(id) ?? 0) + profile.timeDeltas[i]!);
  });
  const byPlace = new Map<string, number>();
  for (const node of profile.nodes) {
    const time = selfTime.get(node.id);
    if (!time || node.callFrame.functionName === '(idle)' || node.callFrame.functionName === '(program)') continue;
    const place = placeOf(node.callFrame);
    byPlace.set(place, (byPlace.get(place) ?? 0) + time / answers);
  }
  return byPlace;
}

const TOP = 40;
const args = process.argv.slice(2);
const lastSeconds = args[0] === '--last' ? Number(args.splice(0, 2)[1]) : null;
if ((args.length !== 2 && args.length !== 4) || Number.isNaN(lastSeconds)) {
  throw new Error('usage: npx tsx bench/profile-sources.ts [--last <seconds>] <profile> <answers> [<profile> <answers>]');
}
const profiles = [0, 2].flatMap((i) => (args[i] ? [perAnswer(args[i], Number(args[i + 1]), lastSeconds)] : []));
const places = [...new Set(profiles.flatMap((profile) => [...profile.keys()]))];
const groups: [string, (place: string) => boolean][] = [
  ['in all', () => true],
  ["the service's code (src/)", (place) => place.startsWith('src/')],
  ['the packages bundled with it', (place) => place.endsWith(' (bundled)')],
];
const sum = (profile: Map<string, number>, keep: (place: string) => boolean) =>
  places.filter(keep).reduce((total, place) => total + (profile.get(place) ?? 0), 0);
const µs = (value: number) => value.toFixed(2).padStart(8);
const line = (values: number[], label: string) =>
  console.log(`${values.map(µs).join('  ')}${values.length === 2 ? `  ${µs(values[1]! - values[0]!)}` : ''}  ${label}`);

console.log(profiles.length === 2 ? '  before     after    change  (µs of CPU per answer)' : '      µs  (of CPU per answer)');
for (const [label, keep] of groups)
  line(
    profiles.map((profile) => sum(profile, keep)),
    label,
  );
console.log();
const change = (place: string) => profiles.reduce((total, profile, i) => total + (i === 0 ? -1 : 1) * (profile.get(place) ?? 0), 0);
const size = (place: string) => (profiles.length === 2 ? Math.abs(change(place)) : profiles[0]!.get(place)!);
for (const place of places.sort((a, b) => size(b) - size(a)).slice(0, TOP))
  line(
    profiles.map((profile) => profile.get(place) ?? 0),
    place,
  );
