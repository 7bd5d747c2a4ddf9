// One wrk run (Debian's `wrk` package): a Lua script holds the target's requests, each written once
// per thread before the load, and the threads send them in turn from different offsets; its done()
// prints the figures as one JSON line.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Request } from './targets.js';

const run = promisify(execFile);
const WRK = process.env.WRK ?? '/usr/bin/wrk';

export interface WrkResult {
  requests: number;
  reqPerSec: number;
  /** ms */
  p99: number;
  /** answers with a status of 400 or more */
  statusErrors: number;
  /** connect, read, write errors and timeouts */
  socketErrors: number;
}

const lua = (text: string) => {
  if (text.includes(']==]')) throw new Error(`cannot quote ${text} for Lua`);
  return `[==[${text}]==]`;
};

/** Writes the Lua script sending `requests` with `headers` into `dir`; returns its path. */
export function wrkScript(dir: string, name: string, requests: readonly Request[], headers: Record<string, string>): string {
  const rows = requests.map((r) => `{${lua(r.method)},${lua(r.path)},${r.body === undefined ? 'nil' : lua(r.body)}}`);
  const headerRows = Object.entries(headers).map(([key, value]) => `[ ${lua(key)} ] = ${lua(value)}`);
  const script = `
local requests = {
${rows.join(',\n')}
}
local headers = {${headerRows.join(',')}}
local count = 0
function setup(thread)
  count = count + 1
  thread:set("offset", count * 7919)
end
local formatted = {}
local next_index = 0
function init(args)
  for i, r in ipairs(requests) do formatted[i] = wrk.format(r[1], r[2], headers, r[3]) end
  next_index = (offset or 0) % #formatted
end
function request()
  next_index = next_index % #formatted + 1
  return formatted[next_index]
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRK {"requests":%d,"us":%d,"p99":%.3f,"status":%d,"socket":%d}\\n',
    summary.requests, summary.duration, latency:percentile(99) / 1000, e.status, e.connect + e.read + e.write + e.timeout))
end
`;
  const path = join(dir, `${name.replace(/[^a-z0-9]+/gi, '-')}.lua`);
  writeFileSync(path, script);
  return path;
}

export async function wrk(origin: string, script: string, seconds: number, connections: number): Promise<WrkResult> {
  const args = ['-t2', `-c${connections}`, `-d${seconds}s`, '--timeout', '10s', '-s', script, origin];
  const { stdout } = await run(WRK, args, { maxBuffer: 1 << 20 });
  const line = stdout.split('\n').find((l) => l.startsWith('WRK '));
  if (!line) throw new Error(`wrk printed no figures:\n${stdout}`);
  const r = JSON.parse(line.slice(4)) as { requests: number; us: number; p99: number; status: number; socket: number };
  return { requests: r.requests, reqPerSec: r.requests / (r.us / 1e6), p99: r.p99, statusErrors: r.status, socketErrors: r.socket };
}
