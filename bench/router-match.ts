// Path matching alone over a few thousand varied paths (dates 2018→2026, currencies, webhook ids,
// unknown paths): the edge's router (find-my-way with the D14 pattern check), bare find-my-way,
// and find-my-way behind a memo of known paths. Run each in its own process:
// npx tsx bench/router-match.ts edge|find-my-way|find-my-way-memo
import FindMyWay from 'find-my-way';
import { createRouter } from '../src/edge.js';
import { restPlaces } from '../src/rest/pipeline.js';
import { pathsOf } from '../src/rest/router.js';
import { routes } from '../src/rest/routes.js';

const CODES = ['USD', 'EUR', 'JPY', 'GBP', 'NZD', 'CNY', 'SGD', 'usd'];
let seed = 42;
const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
const date = () => new Date(Date.UTC(2018, 0, 1) + Math.floor(random() * 3000) * 86_400_000).toISOString().slice(0, 10);

const shapes = [
  () => '/latest',
  () => `/latest/${pick(CODES)}`,
  () => `/${date()}`,
  () => `/${date()}/${pick(CODES)}`,
  () => '/timeseries',
  () => '/convert',
  () => `/api/webhook-subscriptions/${Math.floor(random() * 1e9).toString(16)}`,
  () => `/nope/${Math.floor(random() * 1000)}`,
];
const paths = Array.from({ length: 4_000 }, () => pick(shapes)());

function fmw() {
  const router = FindMyWay({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: true });
  for (const path of pathsOf(routes)) {
    const template = path.routes[0]!.path.replace(':date', ':date(^[0-9-]+$)');
    router.on('GET', template, () => {}, path);
  }
  return (pathname: string) => router.find('GET', pathname);
}

function memo<T>(match: (p: string) => T) {
  const known = new Map<string, T>();
  return (p: string) => {
    let found = known.get(p);
    if (found === undefined) known.set(p, (found = match(p)));
    return found;
  };
}

function measure(name: string, match: (p: string) => unknown) {
  for (let round = 0; round < 20; round++) for (const p of paths) match(p); // warm up
  const rounds = 200;
  const started = process.hrtime.bigint();
  for (let round = 0; round < rounds; round++) for (const p of paths) match(p);
  const ns = Number(process.hrtime.bigint() - started) / (rounds * paths.length);
  console.log(`${name.padEnd(40)} ${ns.toFixed(0).padStart(6)} ns per match`);
}

const which = process.argv[2];
if (which === 'edge') measure("the edge's router", createRouter(restPlaces(routes, () => Promise.resolve())));
else if (which === 'find-my-way') measure('find-my-way, no memo', fmw());
else if (which === 'find-my-way-memo') measure('find-my-way, memo of known paths', memo(fmw()));
else console.log('usage: npx tsx bench/router-match.ts edge|find-my-way|find-my-way-memo (one per process: they share no JIT state)');
