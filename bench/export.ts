// GET /export from 2018 to today, as CSV and as a workbook: each answer timed to its last byte while
// the service's resident memory is read from /proc every few milliseconds, set against the idle
// service's (after one answer of each format, so what loads once is loaded).
import { rssOf, type Service } from './service.js';

export const EXPORT_FORMATS = {
  csv: 'text/csv',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
} as const;

export interface ExportResult {
  format: keyof typeof EXPORT_FORMATS;
  bytes: number;
  ms: number[];
  /** MiB */
  overIdle: number[];
}

const SAMPLE_EVERY_MS = 5;

async function fetchExport(service: Service, accept: string): Promise<{ ms: number; bytes: number }> {
  const started = performance.now();
  const response = await fetch(`${service.origin}/export?start_date=2018-01-01`, { headers: { Authorization: `Bearer ${service.key}`, Accept: accept } });
  if (response.status !== 200) throw new Error(`/export answered ${response.status}: ${await response.text()}`);
  let bytes = 0;
  for await (const chunk of response.body!) bytes += (chunk as Uint8Array).length;
  return { ms: performance.now() - started, bytes };
}

/** The idle service's resident memory: the median of a second's samples. */
async function idleRss(pid: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < 20; i++) {
    samples.push(rssOf(pid));
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return samples.sort((a, b) => a - b)[10]!;
}

export async function measureExport(service: Service, rounds: number): Promise<ExportResult[]> {
  for (const accept of Object.values(EXPORT_FORMATS)) await fetchExport(service, accept);
  const idle = await idleRss(service.pid);
  const results: ExportResult[] = [];
  for (const [format, accept] of Object.entries(EXPORT_FORMATS) as [keyof typeof EXPORT_FORMATS, string][]) {
    const result: ExportResult = { format, bytes: 0, ms: [], overIdle: [] };
    for (let round = 0; round < rounds; round++) {
      let peak = idle;
      const sampler = setInterval(() => (peak = Math.max(peak, rssOf(service.pid))), SAMPLE_EVERY_MS);
      const answer = await fetchExport(service, accept);
      clearInterval(sampler);
      result.ms.push(answer.ms);
      result.overIdle.push(Math.max(peak, rssOf(service.pid)) - idle);
      result.bytes = answer.bytes;
    }
    results.push(result);
  }
  return results;
}
