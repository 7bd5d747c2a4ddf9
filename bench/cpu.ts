// CPU time used by a process, to tell whether the servers or the load generator were the limit:
// this process's from process.cpuUsage(), another's (the server child) from Linux's /proc.
import { readFileSync } from 'node:fs';

/** Seconds of CPU (user + system) used so far by `pid`; null where /proc is not available. */
export function cpuSecondsOf(pid: number): number | null {
  if (pid === process.pid) {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1e6;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are the 14th and 15th fields.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // USER_HZ is 100 on Linux
  } catch {
    return null;
  }
}

/** Starts a CPU stopwatch for `pid`; the returned function gives the share of one core used since. */
export function cpuShare(pid: number): () => number | null {
  const cpu0 = cpuSecondsOf(pid);
  const t0 = performance.now();
  return () => {
    const cpu1 = cpuSecondsOf(pid);
    if (cpu0 === null || cpu1 === null) return null;
    return (cpu1 - cpu0) / ((performance.now() - t0) / 1000);
  };
}
