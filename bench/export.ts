// GET /export of the whole history, measured against the service as `npm start` runs it (the bundle
// dist/main.js, with its Node flags, on the embedded database): a generated history in the RBA's
// F11.1 CSV layout (bench/fixtures.ts), every business day from 2018 to today with the 20 codes,
// imported with the operator CLI. Each format (CSV, NDJSON, a workbook) is fetched ROUNDS times in
// turn; each answer is timed to its last byte while the service's resident memory is read from
// /proc every few milliseconds, and set against the memory of the idle service (after one answer of
// each format, so that what loads once is loaded). Prints the figures as JSON.
//
//   npx tsx bench/export.ts            (BENCH_EXPORT_ROUNDS=<n>, 5 by default)
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sydneyDate } from '../src/domain/calendar.js';
import { SERVICE_NODE_FLAGS } from '../scripts/build.js';
import { generatedF11Csv } from './fixtures.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.BENCH_EXPORT_ROUNDS ?? 5);
const SAMPLE_EVERY_MS = 5;
const FORMATS = {
  csv: 'text/csv',
  ndjson: 'application/x-ndjson',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
} as const;

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** The process's resident memory in MiB, from /proc. */
function rssOf(pid: number): number {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))!;
  return Number(line[1]) / 1024;
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

function cli(env: NodeJS.ProcessEnv, args: string[]): Record<string, unknown> {
  const run = spawnSync(process.execPath, [join(ROOT, 'dist/cli.js'), ...args], { env, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`cli ${args.join(' ')} failed: ${run.stdout}${run.stderr}`);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

async function main(): Promise<void> {
  const built = spawnSync(process.execPath, [join(ROOT, 'scripts/build-if-changed.js')], { stdio: 'inherit' });
  if (built.status !== 0) throw new Error('the build failed');
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-export-'));
  const ratesFile = join(dataDir, 'f11.1-generated.csv');
  const today = sydneyDate(new Date());
  writeFileSync(ratesFile, generatedF11Csv('2018-01-01', today));
  const [port, internalPort] = [await freePort(), await freePort()];
  const env = {
    ...process.env,
    NODE_ENV: 'production',
    DATA_DIR: dataDir,
    PORT: String(port),
    INTERNAL_PORT: String(internalPort),
    RBA_HISTORY_URLS: 'off',
    SCHEDULER: 'off',
    LOG_LEVEL: 'warn',
  };
  let service: ChildProcess | undefined;
  try {
    service = spawn(process.execPath, [...SERVICE_NODE_FLAGS, join(ROOT, 'dist/main.js')], { env, stdio: ['ignore', 'inherit', 'inherit'] });
    const origin = `http://127.0.0.1:${port}`;
    for (let tries = 0; ; tries++) {
      const up = await fetch(`${origin}/status`).then(
        () => true,
        () => false,
      );
      if (up) break;
      if (tries > 600) throw new Error('the service did not start');
      await sleep(100);
    }
    const imported = cli(env, ['import', ratesFile]);
    cli(env, ['account', 'create', '--email', 'bench-export@example.test', '--plan', 'business']);
    const { key } = cli(env, ['key', 'create', '--email', 'bench-export@example.test']) as { key: string };
    const get = async (accept: string) => {
      const started = performance.now();
      const response = await fetch(`${origin}/export`, { headers: { Authorization: `Bearer ${key}`, Accept: accept } });
      if (response.status !== 200) throw new Error(`/export answered ${response.status}: ${await response.text()}`);
      let bytes = 0;
      for await (const chunk of response.body!) bytes += (chunk as Uint8Array).length;
      return { ms: performance.now() - started, bytes };
    };
    for (const accept of Object.values(FORMATS)) await get(accept);
    await sleep(2000);
    const pid = service.pid!;
    const idle = median(Array.from({ length: 20 }, () => rssOf(pid)));

    const results: Record<string, unknown> = {};
    for (const [format, accept] of Object.entries(FORMATS)) {
      const times: number[] = [];
      let peak = 0;
      let bytes = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), SAMPLE_EVERY_MS);
        const answer = await get(accept);
        clearInterval(sampler);
        peak = Math.max(peak, rssOf(pid));
        times.push(answer.ms);
        bytes = answer.bytes;
      }
      results[format] = {
        bytes,
        medianMs: Math.round(median(times)),
        slowestMs: Math.round(Math.max(...times)),
        peakRssMiB: Math.round(peak * 10) / 10,
        growthOverIdleMiB: Math.round((peak - idle) * 10) / 10,
      };
    }
    console.log(
      JSON.stringify(
        {
          days: imported.days,
          firstDate: imported.firstDate,
          lastDate: imported.lastDate,
          codes: 20,
          rounds: ROUNDS,
          idleRssMiB: Math.round(idle * 10) / 10,
          results,
        },
        null,
        2,
      ),
    );
  } finally {
    service?.kill('SIGTERM');
    if (service && service.exitCode === null) await new Promise((done) => service!.once('exit', done));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
