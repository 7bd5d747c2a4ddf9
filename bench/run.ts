// `npm run bench`: the service as `npm start` runs it, holding a synthetic 2018–2022 history and the
// RBA's 2023–2026 file with an Enterprise key (PGlite; Postgres when DATABASE_URL is set), next to a bare node:http server in
// this process answering a body of /latest's size. wrk drives each target (bench/targets.ts), each
// measured right after a run of the bare server, the targets taking turns round after round; the
// report gives each target's medians: req/s, share of bare, p99 and the server's CPU per request,
// then /export's time and memory, each against its floor (docs/performance.md). Beside the MCP
// target it gives the MCP SDK's own CPU per call, measured apart (bench/mcp-sdk.ts).
//
//   npm run bench -- [--only <text>,…] [--rounds 3] [--seconds 4] [--warmup 1] [--connections 50]
//                    [--export-rounds 3] [--variant NAME=VALUE …] [--rates <file>]
//
// --only measures the targets whose name holds one of the texts ('export' for /export alone).
// --variant starts a second service with those settings (e.g. SHARED_ANSWERS=off), measured in
// turn with the first, and reports each target's share in both.
// Exits 1 when an answer was not what the target expects (a socket error, a 4xx or 5xx from a target
// that had none before the load), not when a floor is missed: it is a report.
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { SERVICE_NODE_FLAGS } from '../scripts/build.js';
import { measureExport, type ExportResult } from './export.js';
import { build, startService, SYNTHETIC, type Service } from './service.js';
import { CPU_PAIRS, MCP_HEADERS, MCP_PAIR, targetsFor, type Request, type Target } from './targets.js';
import { wrk, wrkScript, type WrkResult } from './wrk.js';

const { values: flags } = parseArgs({
  options: {
    only: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '4' },
    warmup: { type: 'string', default: '1' },
    connections: { type: 'string', default: '50' },
    'export-rounds': { type: 'string', default: '3' },
    variant: { type: 'string', multiple: true, default: [] },
    rates: { type: 'string', default: fileURLToPath(new URL('../seed/f11.1-data_2026-05-11.csv', import.meta.url)) },
  },
});

function whole(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a whole number of at least 1, got ${text}`);
  return value;
}
const ROUNDS = whole('rounds', flags.rounds);
const SECONDS = whole('seconds', flags.seconds);
const WARMUP = Number(flags.warmup);
const CONNECTIONS = whole('connections', flags.connections);
const EXPORT_ROUNDS = whole('export-rounds', flags['export-rounds']);
const ONLY = flags.only?.split(',').map((text) => text.trim().toLowerCase());
const wanted = (name: string) => !ONLY || ONLY.some((text) => name.toLowerCase().includes(text));
const P99_UNDER_MS = 25;
const EXPORT_FLOOR = { ms: 1_000, overIdleMiB: 30 };

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

interface Run extends WrkResult {
  /** the bare server's req/s measured just before */
  bare: number;
  /** µs of CPU per request: the service's, and on Postgres the local server's too (Service.cpuSeconds) */
  cpuMicros: number;
}

const failures: string[] = [];

function headersOf(service: Service, target: Target): Record<string, string> {
  const key = { Authorization: `Bearer ${service.key}` };
  if (!target.mcp) return key;
  return { ...key, ...MCP_HEADERS };
}

/** the most different requests of a target sent before its load */
const PREFLIGHT = 500;

/** Sends the target's first different requests once each: any 4xx but a 404, any 5xx or a failed MCP call stops the bench; returns the share of 404s. */
async function preflight(service: Service, target: Target): Promise<number> {
  const distinct = [...new Map(target.requests.map((r) => [`${r.method} ${r.path} ${r.body}`, r])).values()].slice(0, PREFLIGHT);
  let refused = 0;
  for (const request of distinct) {
    const send = () => fetch(`${service.origin}${request.path}`, { method: request.method, headers: headersOf(service, target), body: request.body });
    // a kept-alive connection the service closes as it is reused fails the request: sent again once
    const response = await send().catch(send);
    const text = await response.text();
    if (response.status >= 500 || (response.status >= 400 && response.status !== 404)) {
      throw new Error(`${target.name}: ${request.method} ${request.path} answered ${response.status}: ${text.slice(0, 300)}`);
    }
    const answer = target.mcp ? (JSON.parse(text) as { result?: { isError?: boolean } }) : null;
    if (answer && (!answer.result || answer.result.isError)) {
      throw new Error(`${target.name}: the tool call failed: ${text.slice(0, 300)}`);
    }
    if (response.status === 404) refused++;
  }
  return refused / distinct.length;
}

async function measure(origin: string, script: string, cpuSeconds: (() => number) | null): Promise<WrkResult & { cpuMicros: number }> {
  if (WARMUP > 0) await wrk(origin, script, WARMUP, CONNECTIONS);
  const cpu0 = cpuSeconds?.() ?? 0;
  const result = await wrk(origin, script, SECONDS, CONNECTIONS);
  const cpuMicros = cpuSeconds ? ((cpuSeconds() - cpu0) * 1e6) / result.requests : 0;
  return { ...result, cpuMicros };
}

function bareServer(bytes: number) {
  const empty = '{"success":true,"pad":""}';
  const body = Buffer.from(`{"success":true,"pad":"${'x'.repeat(bytes - empty.length)}"}`);
  const headers = { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(body.length) };
  return createServer((_request, response) => {
    response.writeHead(200, headers);
    response.end(body);
  });
}

/**
 * The MCP SDK's own CPU per call (bench/mcp-sdk.ts), run with the service's Node flags while each
 * call stays in flight as long as the twin's requests did under the load: the least an MCP call can
 * cost beyond its twin.
 */
async function measureSdk(service: Service, twin: readonly Run[], dir: string): Promise<{ inFlightMs: number; cpuMicros: number }> {
  const bodyFile = join(dir, 'twin-body.json');
  const answer = await fetch(`${service.origin}/latest`, { headers: { Authorization: `Bearer ${service.key}` } });
  writeFileSync(bodyFile, await answer.text());
  const inFlightMs = Math.max(1, Math.round((CONNECTIONS * 1_000) / median(twin.map((r) => r.reqPerSec))));
  const script = fileURLToPath(new URL('mcp-sdk.ts', import.meta.url));
  const args = [...SERVICE_NODE_FLAGS, '--import', 'tsx', script, bodyFile, String(inFlightMs), String(SECONDS), String(CONNECTIONS)];
  const { stdout } = await promisify(execFile)(process.execPath, args);
  return { inFlightMs, cpuMicros: (JSON.parse(stdout) as { cpuMicros: number }).cpuMicros };
}

const pct = (share: number) => `${(share * 100).toFixed(1)}%`;

function report(service: Service, targets: Target[], runs: Map<string, Run[]>, sdk: { inFlightMs: number; cpuMicros: number } | null): void {
  console.log(`\n${service.label}: ${service.storage}, ${ROUNDS} rounds of ${SECONDS} s, ${CONNECTIONS} connections; medians\n`);
  console.log(
    `| target | req/s | share of bare | p99 | server CPU per request${service.storage === 'postgres' ? ' (service + Postgres)' : ''} | 4xx | floor |`,
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const target of targets) {
    const of = runs.get(target.name);
    if (!of) continue;
    const share = median(of.map((r) => r.reqPerSec / r.bare));
    const p99 = median(of.map((r) => r.p99));
    const floor = target.floor?.[service.storage];
    const verdicts = [
      ...(floor === undefined ? [] : [`≥ ${pct(floor)} ${share >= floor ? 'met' : 'MISSED'}`]),
      `p99 < ${P99_UNDER_MS} ms ${p99 < P99_UNDER_MS ? 'met' : 'MISSED'}`,
    ];
    const refused = median(of.map((r) => r.statusErrors / r.requests));
    console.log(
      `| ${target.name} | ${Math.round(median(of.map((r) => r.reqPerSec))).toLocaleString('en-US')} | ${pct(share)} | ${p99.toFixed(1)} ms | ${Math.round(median(of.map((r) => r.cpuMicros)))} µs | ${pct(refused)} | ${verdicts.join(', ')} |`,
    );
  }
  for (const [one, other, most] of CPU_PAIRS) {
    const [a, b] = [runs.get(one), runs.get(other)];
    if (!a || !b) continue;
    const ratio = median(a.map((r) => r.cpuMicros)) / median(b.map((r) => r.cpuMicros));
    console.log(`\n${one} costs ${ratio.toFixed(2)}× the server CPU of ${other} (at most ${most}×: ${ratio <= most ? 'met' : 'MISSED'})`);
  }
  const twin = runs.get(MCP_PAIR[1]);
  if (sdk && twin) {
    const share = sdk.cpuMicros / median(twin.map((r) => r.cpuMicros));
    console.log(
      `  the MCP SDK alone, ${CONNECTIONS} calls each in flight for ${sdk.inFlightMs} ms: ${Math.round(sdk.cpuMicros)} µs per call, ${share.toFixed(2)}× the twin's CPU`,
    );
  }
}

function reportExport(service: Service, results: ExportResult[]): void {
  console.log(`\n${service.label}: /export 2018 to today (2018–2022 synthetic), ${EXPORT_ROUNDS} rounds; medians (slowest)\n`);
  console.log('| format | size | wall time | resident memory over idle | floor |');
  console.log('|---|---|---|---|---|');
  for (const r of results) {
    const [ms, over] = [median(r.ms), median(r.overIdle)];
    const met = ms < EXPORT_FLOOR.ms && over <= EXPORT_FLOOR.overIdleMiB;
    console.log(
      `| ${r.format} | ${Math.round(r.bytes / 1024)} KiB | ${Math.round(ms)} ms (${Math.round(Math.max(...r.ms))}) | ${over.toFixed(1)} MiB (${Math.max(...r.overIdle).toFixed(1)}) | < 1 s, ≤ 30 MiB: ${met ? 'met' : 'MISSED'} |`,
    );
  }
}

function reportVariants(services: Service[], targets: Target[], runs: Map<Service, Map<string, Run[]>>): void {
  console.log(`\nshare of bare, medians: ${services.map((s) => s.label).join(' / ')}\n`);
  console.log(`| target | ${services.map((s) => s.label).join(' | ')} | ratios to the first |`);
  console.log(`|---|${services.map(() => '---|').join('')}---|`);
  for (const target of targets) {
    const shares = services.map((s) => median((runs.get(s)!.get(target.name) ?? []).map((r) => r.reqPerSec / r.bare)));
    const cpu = services.map((s) => median((runs.get(s)!.get(target.name) ?? []).map((r) => r.cpuMicros)));
    const ratios = services.slice(1).map((_, i) => `${(shares[i + 1]! / shares[0]!).toFixed(2)} (CPU ${(cpu[i + 1]! / cpu[0]!).toFixed(2)})`);
    console.log(`| ${target.name} | ${shares.map(pct).join(' | ')} | ${ratios.join(', ')} |`);
  }
}

async function main(): Promise<void> {
  build();
  const variants = flags.variant.map((setting) => {
    const equals = setting.indexOf('=');
    if (equals < 1) throw new Error(`--variant takes NAME=VALUE, got ${setting}`);
    return { [setting.slice(0, equals)]: setting.slice(equals + 1) };
  });
  const services: Service[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'bench-wrk-'));
  const bare = { server: null as ReturnType<typeof bareServer> | null };
  try {
    services.push(await startService('service', flags.rates, {}));
    for (const env of variants) services.push(await startService(Object.entries(env)[0]!.join('='), flags.rates, env));
    const [main] = services as [Service];
    console.log(`${SYNTHETIC.start} to ${SYNTHETIC.end}: SYNTHETIC rates (the RBA's business days and decimals, not its values)`);
    console.log(`${main.firstDate} to ${main.lastDate}: ${flags.rates}`);

    const targets = targetsFor(main).filter((t) => wanted(t.name));
    const runs = new Map(services.map((s) => [s, new Map<string, Run[]>()]));
    if (targets.length > 0) {
      const latest = await fetch(`${main.origin}/latest`, { headers: { Authorization: `Bearer ${main.key}` } });
      bare.server = bareServer((await latest.arrayBuffer()).byteLength);
      await new Promise<void>((resolve) => bare.server!.listen(0, '127.0.0.1', resolve));
      const bareOrigin = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}/`;
      const bareScript = wrkScript(dir, 'bare', [{ method: 'GET', path: '/latest' } satisfies Request], { Authorization: `Bearer ${main.key}` });
      const scripts = new Map<Service, Map<string, { script: string; refused: number }>>();
      for (const service of services) {
        const of = new Map<string, { script: string; refused: number }>();
        for (const target of targets) {
          const refused = await preflight(service, target);
          of.set(target.name, { script: wrkScript(dir, `${service.label}-${target.name}`, target.requests, headersOf(service, target)), refused });
        }
        scripts.set(service, of);
      }
      for (let round = 0; round < ROUNDS; round++) {
        for (const target of targets) {
          const bareRun = await measure(bareOrigin, bareScript, null);
          // with a variant, the services take turns going first
          const order = services.map((_, i) => services[(i + round) % services.length]!);
          for (const service of order) {
            const { script, refused } = scripts.get(service)!.get(target.name)!;
            const run = { ...(await measure(`${service.origin}/`, script, () => service.cpuSeconds())), bare: bareRun.reqPerSec };
            // a varied target's share of 404s depends on which of its requests the run got to
            const seen = run.statusErrors / run.requests;
            if (run.socketErrors > 0 || (refused === 0 && seen > 0) || (refused === 1 && seen < 1)) {
              failures.push(`${service.label} ${target.name}: ${run.socketErrors} socket errors, ${pct(seen)} 4xx/5xx where ${pct(refused)} were seen before`);
            }
            const list = runs.get(service)!;
            list.set(target.name, [...(list.get(target.name) ?? []), run]);
          }
          process.stdout.write('.');
        }
      }
      for (const service of services) {
        const of = runs.get(service)!;
        const twin = of.get(MCP_PAIR[1]);
        report(service, targets, of, of.has(MCP_PAIR[0]) && twin ? await measureSdk(service, twin, dir) : null);
      }
      if (services.length > 1) reportVariants(services, targets, runs);
    }
    if (wanted('export')) for (const service of services) reportExport(service, await measureExport(service, EXPORT_ROUNDS));
  } finally {
    bare.server?.close();
    for (const service of services) await service.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  if (failures.length > 0) {
    console.error(`\nanswers not as expected, the figures above are not valid:\n${failures.join('\n')}`);
    process.exitCode = 1;
  }
}

await main();
