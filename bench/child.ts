// Runs bench/serve.ts in a child Node process, so the servers get an event loop (and a core) of
// their own, apart from the load generator. The child runs a bundle of it, built as `npm start`
// builds the service (scripts/build.ts), so the service is measured as it runs there.
// BENCH_CPU_PROF=<dir> makes the child write a V8 CPU profile there when it exits, and keeps the
// bundle (with its source maps) for bench/profile-sources.ts to read the profile by source file.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { SERVICE_NODE_FLAGS, bundle } from '../scripts/build.js';
import type { RunningServers, ServersInfo } from './servers.js';

const SERVE = fileURLToPath(new URL('./serve.ts', import.meta.url));
/** in the project's dist/, where the bundle finds the packages */
const BUNDLE_DIR = fileURLToPath(new URL(`../dist/bench-${process.pid}/`, import.meta.url));

/** `sharedAnswers`: whether identical read requests share answers in the service */
export async function startServersInChild(sharedAnswers: boolean): Promise<RunningServers> {
  const serveBundle = await bundle(SERVE, BUNDLE_DIR);
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  // Measured as `npm start` runs it: with its Node flags, in production mode (graphql skips its
  // development checks).
  const child = spawn(process.execPath, [...profile, '--expose-gc', ...SERVICE_NODE_FLAGS, serveBundle], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'production', BENCH_SHARED_ANSWERS: sharedAnswers ? 'on' : 'off' },
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  if (!process.env.BENCH_CPU_PROF) void exited.then(() => rmSync(BUNDLE_DIR, { recursive: true, force: true }));

  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    let ready = false;
    lines.on('line', (line) => {
      if (ready) return void process.stdout.write(`[serve] ${line}\n`);
      let info: ServersInfo;
      try {
        info = JSON.parse(line) as ServersInfo;
      } catch {
        return void process.stdout.write(`[serve] ${line}\n`);
      }
      ready = true;
      resolve({
        info,
        async close() {
          child.stdin.end(); // serve.ts cleans up when its stdin closes
          const code = await exited;
          if (code !== 0) throw new Error(`the server process exited with code ${code} while cleaning up`);
        },
      });
    });
    child.once('error', reject);
    void exited.then((code) => {
      if (!ready) reject(new Error(`the server process exited with code ${code} before it was ready`));
    });
  });
}
