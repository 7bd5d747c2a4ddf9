// A request as the edge's steps read it (src/edge.ts): the fetch Request the listener's adapter
// made, and the raw request node:http handed it, read for what a fetch Request cannot say.
import { readLimited } from './body.js';
import type { RestRequest } from './exchange.js';

/** What node:http hands the adapter (or a test in its place): the raw request, read for what a fetch Request cannot say. */
export interface ServerContext {
  req?: {
    socket?: { remoteAddress?: string; encrypted?: boolean };
    /** the header fields as sent, names and values in turn */
    rawHeaders?: string[];
  };
}

/** A request as the steps read it: the fetch Request, and the raw request behind it. */
export class EdgeRequest implements RestRequest {
  readonly method: string;
  readonly url: URL;
  constructor(
    readonly fetchRequest: Request,
    private readonly context: ServerContext,
  ) {
    this.method = fetchRequest.method;
    this.url = new URL(fetchRequest.url);
  }
  header(name: string): string | null {
    return this.fetchRequest.headers.get(name);
  }
  repeated(name: string): boolean {
    // A fetch Request joins repeated fields; the raw request still has each one.
    const raw = this.context.req?.rawHeaders;
    if (!raw) return false;
    let seen = 0;
    for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === name.length && raw[i]!.toLowerCase() === name && ++seen > 1) return true;
    return false;
  }
  body(limit: number): Promise<string> {
    // Read from the raw request where there is one: refused past the limit, the rest of what the
    // client sends is then drained by node:http after the answer, so the client reads the refusal.
    const raw = this.context.req;
    if (raw && Symbol.asyncIterator in raw) return readLimited(raw as AsyncIterable<Uint8Array>, limit);
    const { body } = this.fetchRequest;
    return body ? readLimited(body, limit) : Promise.resolve('');
  }
  get remoteAddress(): string | undefined {
    return this.context.req?.socket?.remoteAddress;
  }
  get encrypted(): boolean {
    return this.context.req?.socket?.encrypted === true;
  }
}
