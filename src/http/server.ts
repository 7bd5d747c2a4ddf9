// Every listener of the service (the public port over HTTP or HTTPS, the internal port) is made
// here, with the same time limits and the same answer to what Node's HTTP parser refuses, so the
// tests and the benchmark run the listener the service runs.
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { ConfigError } from '../config.js';
import { MAX_HEADER_BYTES, type ListenerLimits } from './limits.js';
import { refusal, refusalBytes } from './refusal.js';
import { requestIdFrom } from './request-id.js';
import { requestUrl } from './request-target.js';
import { BadRequestError } from '../errors.js';

/** how long a refused connection keeps reading what the client still sends before it is closed */
const LINGER_MS = 2_000;

export interface ListenerOptions {
  limits: ListenerLimits;
  logger: Logger;
  /** PEM certificate and key: the listener speaks HTTPS */
  tls?: { cert: Buffer; key: Buffer };
}

/**
 * The request target and Host are judged here, once, before the edge makes a fetch Request of
 * them (src/http/request-target.ts): a target that is no path, or a missing, repeated or malformed
 * Host, is refused in the envelope; an absolute-form target is handed on as its path.
 */
/** A listener's handler: the edge (src/edge.ts), whose answer may come later. */
export type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;

function judgingTargets(handler: Handler, logger: Logger): RequestListener {
  return (req, res) => {
    let url: URL;
    try {
      url = requestUrl(req);
    } catch (error) {
      if (!(error instanceof BadRequestError)) throw error;
      const clientId = req.headers['x-request-id'];
      // The connection is closed after the answer: what follows on it cannot be trusted to start a new request.
      const { status, headers, body } = refusal(error.code, error.message, requestIdFrom(typeof clientId === 'string' ? clientId : null));
      logger.debug({ requestId: headers['X-Request-Id'], target: req.url, status }, 'request target refused');
      res.writeHead(status, headers);
      res.end(body);
      return;
    }
    req.url = url.pathname + url.search;
    void handler(req, res);
  };
}

export function createListener(edge: Handler, { limits, logger, tls }: ListenerOptions): Server {
  const handler = judgingTargets(edge, logger);
  const settings = {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    // Node looks for expired requests only this often (30 s by default), which would stretch every limit.
    connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 5))),
    maxHeaderSize: MAX_HEADER_BYTES,
    // Node's own refusal has no body; a missing Host is refused in the envelope instead (request-target.ts).
    requireHostHeader: false,
  };
  const server: Server = tls ? createHttpsServer({ ...settings, cert: tls.cert, key: tls.key }, handler) : createServer(settings, handler);
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => answerClientError(error, socket, limits, logger));
  // An Expect other than 100-continue would get Node's bare 417; the field is only advisory (RFC 9110 10.1.1).
  server.on('checkExpectation', handler);
  // Node hands CONNECT to this event and, with no listener, closes the connection unanswered.
  server.on('connect', (req: IncomingMessage, socket: Duplex) => refuseTunnel(req, socket, logger));
  return server;
}

/** Node's response in flight on this socket, if any (it keeps it there, undocumented). */
const inFlightOn = (socket: Duplex) => (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;

/**
 * CONNECT asks for a tunnel, which no listener of the service opens: 405 in the envelope, and the
 * connection closed. A CONNECT sent behind other requests on the connection is answered after
 * theirs, and not at all when one of them closed the connection.
 */
function refuseTunnel(req: IncomingMessage, socket: Duplex, logger: Logger): void {
  socket.on('error', () => socket.destroy());
  const answerWhenIdle = () => {
    // A response stays on its socket until Node is done with it, and emits 'close' after Node has
    // ended a connection it closes; the next pipelined response then takes its place.
    const inFlight = inFlightOn(socket);
    if (inFlight) {
      inFlight.once('close', () => {
        if (!socket.writableEnded && !socket.destroyed) answerWhenIdle();
      });
      return;
    }
    const clientId = req.headers['x-request-id'];
    const answer = refusal(
      'method_not_allowed',
      'CONNECT is not allowed: this service opens no tunnels',
      requestIdFrom(typeof clientId === 'string' ? clientId : null),
    );
    answer.headers.Allow = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';
    logger.debug({ requestId: answer.headers['X-Request-Id'], target: req.url }, 'CONNECT refused');
    socket.end(refusalBytes(answer));
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
  answerWhenIdle();
}

/** What a parser error or an expired request is answered with. */
function refusalFor(error: NodeJS.ErrnoException, limits: ListenerLimits, requestId: string) {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return refusal('headers_too_large', `The request line and headers are too large: at most ${MAX_HEADER_BYTES} bytes together`, requestId);
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return refusal(
        'request_timeout',
        `The request was not received in time: headers within ${limits.headersTimeoutMs / 1000} s, the whole request within ${limits.requestTimeoutMs / 1000} s`,
        requestId,
      );
    default: {
      const reason = 'reason' in error && typeof error.reason === 'string' ? error.reason : error.message;
      return refusal('bad_request', `The request is not valid HTTP/1.1: ${reason}`, requestId);
    }
  }
}

const answered = new WeakSet<Duplex>();

/**
 * Answers in the envelope when nothing of a response has been written on the socket yet (as Node's
 * own handler does), then ends the connection; a reset or unwritable socket is just closed. The
 * rest of what the client sends is read and dropped for a moment first: closing with unread bytes
 * would reset the connection and could destroy the answer before the client reads it.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, limits: ListenerLimits, logger: Logger): void {
  if (answered.has(socket)) return; // the parser refuses every later chunk too
  answered.add(socket);
  const inFlight = inFlightOn(socket);
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const answer = refusalFor(error, limits, requestIdFrom(null));
  logger.debug({ code: error.code, requestId: answer.headers['X-Request-Id'], status: answer.status }, 'request refused by the HTTP parser');
  if (inFlight) {
    // The app still holds this request (its body is late): its own answer must find the socket gone.
    socket.write(refusalBytes(answer));
    socket.destroy();
    return;
  }
  socket.end(refusalBytes(answer));
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

/** Listens on host:port; resolves with the listener's URL. */
export function listen(server: Server, port: number, host: string): Promise<string> {
  const scheme = server instanceof HttpsServer ? 'https' : 'http';
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new ConfigError(`${host}:${port} is already in use: stop what listens there or set another port (PORT, INTERNAL_PORT)`)
          : error,
      ),
    );
    server.listen(port, host, () => {
      const { address, port: bound } = server.address() as AddressInfo;
      resolve(`${scheme}://${address.includes(':') ? `[${address}]` : address}:${bound}`);
    });
  });
}

/** How often a closing listener looks for connections that have become idle. */
const IDLE_SWEEP_MS = 50;

/**
 * Stops accepting connections and lets every request in flight be answered, closing each
 * connection as soon as it is idle (one kept alive would otherwise stay open until its keep-alive
 * timeout); whatever is still open at `deadline` (epoch ms) is cut off. Resolves once every
 * connection is closed.
 */
export async function closeListener(server: Server, deadline: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
  const cut = setTimeout(() => server.closeAllConnections(), Math.max(0, deadline - Date.now()));
  try {
    await closed;
  } finally {
    clearInterval(sweep);
    clearTimeout(cut);
  }
}
