// Child-process entry: starts the servers (bench/servers.ts), prints their ServersInfo as one JSON
// line on stdout, and shuts everything down when stdin closes (or on SIGTERM/SIGINT).
import { startServers } from './servers.js';

const running = await startServers();
process.stdout.write(`${JSON.stringify(running.info)}\n`);

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  try {
    await running.close();
    process.exit(0); // a normal exit, so --cpu-prof writes its profile
  } catch (error) {
    console.error('bench/serve: cleanup failed', error);
    process.exit(1);
  }
}
process.stdin.on('end', () => void stop());
process.stdin.on('close', () => void stop());
process.stdin.resume();
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
