// HTTP/1.1 as bytes: a raw socket that sends exactly what a test wrote (malformed on purpose) and
// keeps everything that comes back, and a reader of the responses in it, for tests about what the
// listener does with bytes no well-behaved client would send.
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { expect } from 'vitest';

export interface RawResponse {
  status: number;
  /** lower-cased names; a repeated header keeps its last value */
  headers: Record<string, string>;
  body: string;
}

export interface Exchange {
  /** every byte the server sent, as latin1 */
  received: string;
  /** the server closed the connection (or reset it) before `timeoutMs` */
  closed: boolean;
  /** a socket error the client saw (ECONNRESET, …) */
  error?: string;
  ms: number;
}

export interface ExchangeOptions {
  /** how long to wait for the server to close; the exchange ends then either way */
  timeoutMs?: number;
  /** write the request in pieces this long, `pauseMs` apart (a slow client) */
  pieces?: { bytes: number; pauseMs: number };
  /**
   * stop waiting once this many complete responses arrived (a kept-alive connection would
   * otherwise be waited on until the server's idle limit)
   */
  responses?: number;
  /** HTTPS: the CA to trust */
  tls?: { ca: string };
}

/** Sends `request` (a latin1 string or bytes) on a new connection and collects the answer until the server closes. */
export function exchange(port: number, request: string | Buffer, options: ExchangeOptions = {}): Promise<Exchange> {
  const bytes = typeof request === 'string' ? Buffer.from(request, 'latin1') : request;
  const started = Date.now();
  return new Promise((resolve) => {
    const socket: Socket = options.tls ? connectTls({ port, host: '127.0.0.1', ca: options.tls.ca, servername: 'localhost' }) : connectTcp(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let error: string | undefined;
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ received: Buffer.concat(chunks).toString('latin1'), closed, ...(error ? { error } : {}), ms: Date.now() - started });
    };
    const timer = setTimeout(() => finish(false), options.timeoutMs ?? 10_000);
    socket.on(options.tls ? 'secureConnect' : 'connect', () => void write());
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (options.responses !== undefined && completeResponses(Buffer.concat(chunks).toString('latin1')) >= options.responses) finish(false);
    });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error = e.code ?? e.message;
      finish(true);
    });
    socket.on('close', () => finish(true));

    async function write() {
      if (!options.pieces) {
        socket.write(bytes);
        return;
      }
      for (let at = 0; at < bytes.length && !done; at += options.pieces.bytes) {
        socket.write(bytes.subarray(at, at + options.pieces.bytes));
        await new Promise((r) => setTimeout(r, options.pieces!.pauseMs));
      }
    }
  });
}

const STATUS_LINE = /^HTTP\/1\.[01] (\d{3})(?: [^\r\n]*)?$/;

/**
 * The responses in what a server sent, in order; interim 1xx responses are left out. `methods`
 * are the requests' methods, in order (a HEAD response has no body unless it closes the
 * connection, when the rest is its body). Throws on bytes that are not HTTP/1.1 responses; a
 * response cut short by a closed connection ends the list.
 */
export function parseResponses(received: string, methods: readonly string[] = []): RawResponse[] {
  const responses: RawResponse[] = [];
  let at = 0;
  let answered = 0;
  while (at < received.length) {
    const headEnd = received.indexOf('\r\n\r\n', at);
    if (headEnd < 0) break; // cut short
    const [statusLine, ...lines] = received.slice(at, headEnd).split('\r\n');
    const match = STATUS_LINE.exec(statusLine!);
    if (!match) throw new Error(`not an HTTP/1.1 status line: ${JSON.stringify(statusLine)}`);
    const status = Number(match[1]);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon <= 0) throw new Error(`not a header line: ${JSON.stringify(line)}`);
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    at = headEnd + 4;
    if (status < 200) continue;
    const closes = /\bclose\b/i.test(headers.connection ?? '');
    let body: string;
    if (status === 204 || status === 304 || (methods[answered] === 'HEAD' && !closes)) {
      body = '';
    } else if (methods[answered] === 'HEAD') {
      body = received.slice(at); // a refusal written before the method was known may carry one
      at = received.length;
    } else if (/\bchunked\b/i.test(headers['transfer-encoding'] ?? '')) {
      const decoded = readChunked(received, at);
      if (decoded === null) break;
      ({ body, end: at } = decoded);
    } else if (headers['content-length'] !== undefined) {
      const length = Number(headers['content-length']);
      if (!Number.isInteger(length) || length < 0) throw new Error(`bad Content-Length ${headers['content-length']}`);
      if (at + length > received.length) break;
      body = received.slice(at, at + length);
      at += length;
    } else {
      body = received.slice(at); // delimited by the connection's close
      at = received.length;
    }
    responses.push({ status, headers, body: Buffer.from(body, 'latin1').toString('utf8') });
    answered++;
  }
  return responses;
}

function completeResponses(received: string): number {
  try {
    return parseResponses(received).length;
  } catch {
    return 0;
  }
}

function readChunked(received: string, start: number): { body: string; end: number } | null {
  let at = start;
  let body = '';
  for (;;) {
    const lineEnd = received.indexOf('\r\n', at);
    if (lineEnd < 0) return null;
    const size = parseInt(received.slice(at, lineEnd), 16);
    if (Number.isNaN(size)) throw new Error(`bad chunk size ${JSON.stringify(received.slice(at, lineEnd))}`);
    at = lineEnd + 2;
    if (size === 0) {
      if (received.length < at + 2) return null;
      return { body, end: at + 2 };
    }
    if (received.length < at + size + 2) return null;
    body += received.slice(at, at + size);
    at += size + 2;
  }
}

/** The envelope of docs/api.md §7 with the response's own status, and an X-Request-Id. */
export function expectEnvelope(response: RawResponse | undefined, status: number, type?: string): void {
  expect(response, `a ${status} response`).toBeDefined();
  const label = `${response!.status} ${response!.body}`;
  expect(response!.status, label).toBe(status);
  expect(response!.headers['x-request-id'], label).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  expect(response!.headers['content-type'], label).toMatch(/^application\/json/);
  const body = JSON.parse(response!.body);
  expect(body, label).toEqual({ success: false, error: { code: status, type: type ?? expect.any(String), info: expect.any(String) } });
}
