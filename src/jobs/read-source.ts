// Reads an RBA file from a path or an http(s) URL, with a progress bar when stderr is a terminal
// (the operator CLI); the service (scheduler, `sync`) reads without one, bounded by a signal.
import { createReadStream, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SingleBar } from 'cli-progress';

const PROGRESS_FROM_BYTES = 256 * 1024;

function progressBar(total: number | null, show: boolean): { tick(bytes: number): void; stop(): void } {
  if (!show || !process.stderr.isTTY || (total !== null && total < PROGRESS_FROM_BYTES)) return { tick() {}, stop() {} };
  const bar = new SingleBar({
    stream: process.stderr,
    format: total ? 'reading {bar} {percentage}% {value}/{total} bytes' : 'reading {value} bytes',
    hideCursor: true,
  });
  bar.start(total ?? 0, 0);
  let done = 0;
  return {
    tick(bytes) {
      done += bytes;
      bar.update(done);
    },
    stop: () => bar.stop(),
  };
}

async function collect(chunks: AsyncIterable<Uint8Array>, total: number | null, progress: boolean): Promise<Uint8Array> {
  const bar = progressBar(total, progress);
  const parts: Uint8Array[] = [];
  try {
    for await (const chunk of chunks) {
      parts.push(chunk);
      bar.tick(chunk.byteLength);
    }
  } finally {
    bar.stop();
  }
  return Buffer.concat(parts);
}

export interface ReadOptions {
  /** aborts the request or the read (a time limit, a service stopping) */
  signal?: AbortSignal;
  /** false: never a progress bar (the service's own terminal is no place for one) */
  progress?: boolean;
}

export const isUrl = (source: string): boolean => /^https?:\/\//i.test(source);

export async function readSource(source: string, options: ReadOptions = {}): Promise<Uint8Array> {
  const { signal, progress = true } = options;
  if (isUrl(source)) {
    const response = await fetch(source, { headers: { 'User-Agent': 'aud-rates importer' }, ...(signal ? { signal } : {}) }).catch((error: unknown) => {
      if ((error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError') throw error;
      // fetch says only "fetch failed"; the reason (a name that does not resolve, a refused connection) is its cause
      const cause = (error as Error).cause as Error | undefined;
      throw new Error(`the request failed: ${cause?.message ?? (error as Error).message}`);
    });
    if (!response.ok || !response.body) {
      await response.body?.cancel().catch(() => {});
      throw new Error(`GET ${source} answered ${response.status} ${response.statusText}`);
    }
    const length = Number(response.headers.get('content-length'));
    return collect(response.body as AsyncIterable<Uint8Array>, Number.isFinite(length) && length > 0 ? length : null, progress);
  }
  // a file: URL (the seed's default place) or a path
  const path = /^file:/i.test(source) ? fileURLToPath(source) : source;
  const size = statSync(path).size;
  return collect(createReadStream(path, signal ? { signal } : {}), size, progress);
}
