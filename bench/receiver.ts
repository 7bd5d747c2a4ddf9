// Child-process entry (forked by bench/deliveries.ts, IPC channel): the webhook receiver the delivery
// phase aims at, on an event loop of its own. A node:https server on 127.0.0.1 that reads every POST
// to /hook/<n>, checks X-ExchangeRates-Signature against subscription n's secret
// ('sha256=' + hex HMAC-SHA256 of the raw body), counts valid deliveries and distinct
// X-ExchangeRates-Delivery ids, and answers 200 whatever it found. Counts go back over IPC.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/** parent → receiver */
export type ReceiverCommand = { type: 'start'; cert: string; key: string; secrets: string[] } | { type: 'stats' } | { type: 'reset' };

export interface ReceiverStats {
  /** POST requests whose body was read */
  requests: number;
  /** with a signature that matches the path's secret */
  valid: number;
  /** with a missing or wrong signature, or on a path with no secret */
  invalid: number;
  /** distinct X-ExchangeRates-Delivery ids among valid deliveries */
  distinctIds: number;
  /** valid deliveries whose id had been seen before */
  repeatedIds: number;
  /** TLS handshakes or client connections that failed */
  clientErrors: number;
  /** wall-clock arrival (performance.timeOrigin + performance.now(), ms) of each valid delivery, after its body was read */
  arrivals: number[];
}

/** receiver → parent */
export type ReceiverMessage = { type: 'listening'; port: number } | { type: 'stats'; stats: ReceiverStats } | { type: 'error'; message: string };

const send = (message: ReceiverMessage) => process.send?.(message);

let secrets: Buffer[] = [];
let stats: ReceiverStats;
let ids: Set<string>;
function reset(): void {
  stats = { requests: 0, valid: 0, invalid: 0, distinctIds: 0, repeatedIds: 0, clientErrors: 0, arrivals: [] };
  ids = new Set();
}
reset();

function signatureValid(path: string, header: string | string[] | undefined, body: Buffer): boolean {
  const match = /^\/hook\/(\d+)$/.exec(path);
  const secret = match ? secrets[Number(match[1])] : undefined;
  if (!secret || typeof header !== 'string' || !header.startsWith('sha256=')) return false;
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    if (req.method === 'POST') {
      stats.requests++;
      const body = Buffer.concat(chunks);
      if (signatureValid(req.url ?? '', req.headers['x-exchangerates-signature'], body)) {
        stats.valid++;
        stats.arrivals.push(performance.timeOrigin + performance.now());
        const id = req.headers['x-exchangerates-delivery'];
        if (typeof id === 'string' && !ids.has(id)) {
          ids.add(id);
          stats.distinctIds++;
        } else {
          stats.repeatedIds++;
        }
      } else {
        stats.invalid++;
      }
    }
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '2' });
    res.end('ok');
  });
}

function start(command: Extract<ReceiverCommand, { type: 'start' }>): void {
  secrets = command.secrets.map((s) => Buffer.from(s, 'utf8'));
  const server = createServer({ cert: command.cert, key: command.key }, handle);
  // The sender closes each connection as soon as it has the answer: resets are expected, not counted.
  server.on('tlsClientError', () => stats.clientErrors++);
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (error.code !== 'ECONNRESET') stats.clientErrors++;
    socket.destroy();
  });
  server.once('error', (error) => send({ type: 'error', message: error.message }));
  server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => {
    send({ type: 'listening', port: (server.address() as AddressInfo).port });
  });
  // The parent going away (done, or killed) ends the receiver.
  process.once('disconnect', () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}

process.on('message', (command: ReceiverCommand) => {
  if (command.type === 'start') start(command);
  else if (command.type === 'stats') send({ type: 'stats', stats });
  else reset();
});
