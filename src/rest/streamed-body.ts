// Answers that are files: a CSV table, an NDJSON stream, an Excel workbook (D44, D45 in
// docs/decisions.md). A body is a sequence of chunks written as they are produced, so that a whole
// history is never one string; the chunks come from the same unchanging data every time (one
// generation of the rate history), so the body can be walked twice: once for its ETag, once to send it.
//
// The transport's contract (src/edge.ts): `chunks()` gives the bytes in order, strings (UTF-8) or
// byte arrays, each walk from the start; the transport pulls them one at a time, waiting whenever
// the socket's buffer is full, and writes `headers()` with the answer's own. `etag()` is what the
// ETag step sends.
import { createHash } from 'node:crypto';

export type Chunk = string | Uint8Array;

export class StreamedBody {
  constructor(
    /** the Content-Type */
    readonly type: string,
    /** the name offered in Content-Disposition */
    readonly filename: string,
    /** the body's chunks in order, from the start at each call */
    readonly chunks: () => Iterable<Chunk>,
    /**
     * what the bytes are made from, when hashing it costs less than making them (a workbook, whose
     * bytes are deflated): the ETag is that of the source, whose every change changes the bytes
     */
    private readonly source: () => Iterable<Chunk> = chunks,
  ) {}

  /** A strong ETag: the same bytes always come from the same source. */
  etag(): string {
    const sha = createHash('sha1');
    for (const chunk of this.source()) sha.update(chunk);
    return `"${sha.digest('base64url')}"`;
  }

  headers(): Record<string, string> {
    return { 'Content-Type': this.type, 'Content-Disposition': `attachment; filename="${this.filename}"` };
  }
}
