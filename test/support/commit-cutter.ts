// A TCP proxy in front of a Postgres server that can lose the answer to one commit: it passes the
// commit of a quota grant on to the server and cuts the connection at once, so the server commits
// and its answer never reaches the service. This is the instant a server stopped or frozen mid-load
// can hit by chance, made to happen on demand.
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';

export interface CommitCutter {
  /** the server's URL, through the proxy */
  url: string;
  /** Cuts the next connection that sends `commit` right after a grant; resolves once it has. */
  cutNextGrantCommit(): Promise<void>;
  close(): Promise<void>;
}

/** Frontend messages in a stream of bytes: the start-up message has no type byte, the rest do. */
class FrontendMessages {
  private buffered = Buffer.alloc(0);
  private started = false;

  /** The complete messages in `chunk` (with what came before): each with its type and bytes. */
  *read(chunk: Buffer): Generator<{ type: string; bytes: Buffer }> {
    this.buffered = Buffer.concat([this.buffered, chunk]);
    for (;;) {
      const header = this.started ? 5 : 4;
      if (this.buffered.length < header) return;
      const length = this.started ? 1 + this.buffered.readInt32BE(1) : this.buffered.readInt32BE(0);
      if (this.buffered.length < length) return;
      const bytes = this.buffered.subarray(0, length);
      this.buffered = this.buffered.subarray(length);
      const type = this.started ? String.fromCharCode(bytes[0]!) : 'startup';
      this.started = true;
      yield { type, bytes };
    }
  }
}

/** The text of a simple-protocol query ('Q': type, length, text, NUL). */
const queryText = (bytes: Buffer) => bytes.subarray(5, bytes.length - 1).toString('utf8');

export async function startCommitCutter(serverUrl: string): Promise<CommitCutter> {
  const server = new URL(serverUrl);
  const sockets = new Set<Socket>();
  let armed: { cut: () => void } | null = null;

  const proxy = createServer((client) => {
    const upstream = connect(Number(server.port), server.hostname);
    sockets.add(client).add(upstream);
    const messages = new FrontendMessages();
    let afterGrant = false;
    // once cut, the server's side is left to read the commit and the end of the connection: its
    // answer goes nowhere, and closing it here could reset the connection before the commit is read
    let cut = false;
    upstream.on('data', (chunk) => void (cut || client.write(chunk)));
    client.on('data', (chunk: Buffer) => {
      for (const { type, bytes } of messages.read(chunk)) {
        const text = type === 'Q' ? queryText(bytes) : '';
        if (armed && afterGrant && /^commit$/i.test(text.trim())) {
          const done = armed;
          armed = null;
          cut = true;
          upstream.end(bytes);
          client.destroy();
          done.cut();
          return;
        }
        // The grant goes as a statement with parameters (Parse, Bind, …); begin and commit go alone ('Q').
        if (type === 'P') afterGrant = bytes.includes('grant_units');
        else if (type === 'Q') afterGrant = false;
        upstream.write(bytes);
      }
    });
    for (const [socket, other] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      socket.on('error', () => void (cut || other.destroy()));
      socket.on('close', () => {
        sockets.delete(socket);
        if (!cut) other.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const url = new URL(serverUrl);
  url.port = String((proxy.address() as AddressInfo).port);
  return {
    url: url.toString(),
    cutNextGrantCommit: () => new Promise<void>((cut) => (armed = { cut })),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}
