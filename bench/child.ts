// Runs bench/serve.ts in a child Node process (tsx loaded with --import), so the servers get an
// event loop (and a core) of their own, apart from the load generator. BENCH_CPU_PROF=<dir> makes
// the child write a V8 CPU profile there when it exits.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { RunningServers, ServersInfo } from './servers.js';

const SERVE = fileURLToPath(new URL('./serve.ts', import.meta.url));

/** `sharedAnswers`: whether identical read requests share answers in the service */
export function startServersInChild(sharedAnswers: boolean): Promise<RunningServers> {
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  // Measured as `npm start` runs it: in production mode (graphql skips its development checks).
  const child = spawn(process.execPath, [...profile, '--expose-gc', '--import', 'tsx', SERVE], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'production', BENCH_SHARED_ANSWERS: sharedAnswers ? 'on' : 'off' },
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

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
