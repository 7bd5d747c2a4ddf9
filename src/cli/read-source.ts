// Reads an RBA file from a path or an http(s) URL, with a progress bar on a terminal.
import { createReadStream, statSync } from 'node:fs';
import { SingleBar } from 'cli-progress';

const PROGRESS_FROM_BYTES = 256 * 1024;

function progressBar(total: number | null): { tick(bytes: number): void; stop(): void } {
  if (!process.stderr.isTTY || (total !== null && total < PROGRESS_FROM_BYTES)) return { tick() {}, stop() {} };
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

async function collect(chunks: AsyncIterable<Uint8Array>, total: number | null): Promise<Uint8Array> {
  const bar = progressBar(total);
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

export async function readSource(source: string): Promise<Uint8Array> {
  if (/^https?:\/\//i.test(source)) {
    const response = await fetch(source, { headers: { 'User-Agent': 'aud-rates importer' } });
    if (!response.ok || !response.body) throw new Error(`GET ${source} answered ${response.status} ${response.statusText}`);
    const length = Number(response.headers.get('content-length'));
    return collect(response.body as AsyncIterable<Uint8Array>, Number.isFinite(length) && length > 0 ? length : null);
  }
  const size = statSync(source).size;
  return collect(createReadStream(source), size);
}
