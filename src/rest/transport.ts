// How requests reach the pipeline. node:http is the real path (the listener): the pipeline reads
// Node's request through a thin view and its answer is written in one call, with no Request or
// Response built (that conversion halved throughput). The fetch entry, for tests and fetch-based
// runtimes, is a thin adapter onto the same pipeline: the same steps answer both.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Response, createServerAdapter } from '@whatwg-node/server';
import type { Logger } from 'pino';
import { acceptedUrl } from '../http/request-target.js';
import { readLimited } from './body.js';
import { CsvBody } from './csv.js';
import type { Exchange, RestRequest } from './exchange.js';

type Serve = (request: RestRequest) => Promise<Exchange>;

class NodeRequest implements RestRequest {
  constructor(
    private readonly req: IncomingMessage,
    readonly url: URL,
  ) {}
  get method(): string {
    return this.req.method ?? 'GET';
  }
  header(name: string): string | null {
    const value = this.req.headers[name];
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
  }
  body(limit: number): Promise<string> {
    return readLimited(this.req, limit);
  }
  get remoteAddress(): string | undefined {
    return this.req.socket.remoteAddress;
  }
  get encrypted(): boolean {
    return (this.req.socket as { encrypted?: boolean }).encrypted === true;
  }
}

/** What @whatwg-node/server passes along from node:http, or a test in place of a socket. */
export interface FetchContext {
  req?: { socket?: { remoteAddress?: string; encrypted?: boolean } };
}

class FetchRequest implements RestRequest {
  readonly method: string;
  readonly url: URL;
  readonly remoteAddress: string | undefined;
  readonly encrypted: boolean;
  constructor(
    private readonly request: Request,
    context: FetchContext | undefined,
  ) {
    this.method = request.method;
    this.url = new URL(request.url);
    this.remoteAddress = context?.req?.socket?.remoteAddress;
    this.encrypted = context?.req?.socket?.encrypted === true;
  }
  header(name: string): string | null {
    return this.request.headers.get(name);
  }
  async body(limit: number): Promise<string> {
    return this.request.body ? readLimited(this.request.body as AsyncIterable<Uint8Array>, limit) : '';
  }
}

/**
 * Headers as the flat [name, value, …] list writeHead also takes: Node then writes them as they
 * are rather than storing each one first (measured: a third less CPU for an answer's dozen headers).
 */
function headerList(headers: Record<string, string>): string[] {
  const list: string[] = [];
  for (const name in headers) list.push(name, headers[name]!);
  return list;
}

/** The listener's handler. */
export function nodeEntry(serve: Serve, logger: Logger): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const url = acceptedUrl(req, res);
    if (!url) return;
    serve(new NodeRequest(req, url)).then(
      ({ answer, headers, request }) => {
        const list = headerList(headers);
        // A JSON body is sent whole with its length, not in chunks (a HEAD answer gives the GET's length).
        if (typeof answer!.body === 'string') list.push('Content-Length', String(Buffer.byteLength(answer!.body)));
        res.writeHead(answer!.status, list);
        const body = request.method === 'HEAD' ? null : answer!.body;
        if (body instanceof CsvBody) {
          // Row by row, waiting whenever the socket's buffer is full.
          pipeline(Readable.from(body.rows(), { objectMode: false }), res).catch((error: unknown) => logger.debug({ err: error }, 'a CSV answer was cut off'));
        } else {
          res.end(body ?? undefined);
        }
      },
      (error: unknown) => {
        // Last resort, for a fault no step foresaw: logged, and the connection closed rather than the process.
        logger.error({ err: error }, 'answering a request failed');
        res.destroy();
      },
    );
  };
}

/** A CSV body as a byte stream, pulled row by row. */
const csvStream = (body: CsvBody): ReadableStream => Readable.toWeb(Readable.from(body.rows(), { objectMode: false })) as ReadableStream;

/** `fetch(url, init, context)` or `fetch(request, context)`, answered by the same pipeline. */
export function fetchEntry(serve: Serve) {
  return createServerAdapter<FetchContext>(async (request: Request, context: FetchContext) => {
    const { answer, headers } = await serve(new FetchRequest(request, context));
    const body = request.method === 'HEAD' ? null : answer!.body;
    return new Response(body instanceof CsvBody ? csvStream(body) : body, { status: answer!.status, headers });
  });
}
