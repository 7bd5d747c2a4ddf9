// A real HTTPS webhook receiver on 127.0.0.1 for tests: records every delivery, checks signatures the
// way a subscriber would, and answers each path as told (a status, a redirect, silence, a dropped
// connection). Its certificate is self-signed for localhost, 127.0.0.1 and receiver.test; trust it
// through `ca`.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import type { Plan } from '../../src/domain/plans.js';
import type { RbaDay } from '../../src/rba/index.js';
import { startTestApp, type TestApp, type TestAppOptions } from './app.js';
import { createCertificate } from './certificate.js';
import { standIn } from './stand-in.js';

/** The names on the receiver's certificate. */
export const RECEIVER_NAMES = ['localhost', '127.0.0.1', 'receiver.test'] as const;

export type ReceiverMode =
  /** answer with this status (default 200); `bodyBytes` of body, or `body`; `hold` keeps the response open after that */
  | { status: number; bodyBytes?: number; body?: string; hold?: boolean }
  /** 302 with this Location */
  | { redirect: string }
  /** never answer (the connection is closed by close()) */
  | 'hang'
  /** destroy the socket once the request has been read */
  | 'close';

export interface ReceivedDelivery {
  path: string;
  headers: Record<string, string>;
  rawBody: string;
  /** the body parsed as JSON, undefined when it is not JSON */
  json: any;
  /** null when no secret is registered for the path */
  signatureValid: boolean | null;
  answeredWith: number | 'hang' | 'close';
  /** the TLS SNI name the client sent, null when none (as for an IP address) */
  servername: string | null;
  /** when the whole request had arrived (Date.now()) */
  at: number;
}

export interface WebhookReceiver {
  port: number;
  /** https://127.0.0.1:port/path, or with another host name (which must then resolve to 127.0.0.1) */
  url(path: string, host?: string): string;
  /** PEM of the self-signed certificate, to pass as `ca` */
  ca: string;
  deliveries: ReceivedDelivery[];
  /** connections open now (a client that gave up must have closed its own) */
  openConnections(): number;
  setSecret(path: string, secret: string): void;
  /** modes are used in order, one per request; the last one repeats */
  behave(path: string, ...modes: ReceiverMode[]): void;
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  /** forgets deliveries, secrets and modes */
  clear(): void;
  close(): Promise<void>;
}

const normalise = (path: string) => (path.startsWith('/') ? path : `/${path}`);

function signatureMatches(secret: string, rawBody: string, header: string | undefined): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`);
  const given = Buffer.from(header ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const certificate = createCertificate([...RECEIVER_NAMES]);
  certificate.cleanup(); // the PEM strings are all the server needs

  const deliveries: ReceivedDelivery[] = [];
  const secrets = new Map<string, string>();
  const modes = new Map<string, ReceiverMode[]>();
  const waiters = new Set<() => void>();
  const sockets = new Set<Socket>();

  const nextMode = (path: string): ReceiverMode => {
    const queue = modes.get(path);
    if (!queue || queue.length === 0) return { status: 200 };
    return queue.length > 1 ? queue.shift()! : queue[0]!;
  };

  const answer = (mode: ReceiverMode, req: IncomingMessage, res: ServerResponse) => {
    if (mode === 'hang') return;
    if (mode === 'close') {
      req.socket.destroy();
      return;
    }
    if ('redirect' in mode) {
      res.writeHead(302, { location: mode.redirect }).end();
      return;
    }
    const body = mode.body === undefined ? Buffer.alloc(mode.bodyBytes ?? 0, 'x') : Buffer.from(mode.body);
    res.writeHead(mode.status, { 'content-type': 'text/plain', ...(mode.hold ? {} : { 'content-length': String(body.length) }) });
    // A client that stops reading makes writes fail: that is expected here.
    res.on('error', () => {});
    if (body.length > 0) res.write(body);
    if (!mode.hold) res.end();
  };

  const server = createServer({ cert: certificate.cert, key: certificate.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = normalise(new URL(req.url ?? '/', 'https://receiver').pathname);
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : (value ?? '')]));
      let json: any;
      try {
        json = JSON.parse(rawBody);
      } catch {
        json = undefined;
      }
      const secret = secrets.get(path);
      const mode = nextMode(path);
      const servername = (req.socket as TLSSocket).servername;
      deliveries.push({
        path,
        headers,
        rawBody,
        json,
        signatureValid: secret === undefined ? null : signatureMatches(secret, rawBody, headers['x-exchangerates-signature']),
        answeredWith: typeof mode === 'string' ? mode : 'redirect' in mode ? 302 : mode.status,
        servername: typeof servername === 'string' && servername !== '' ? servername : null,
        at: Date.now(),
      });
      for (const wake of waiters) wake();
      answer(mode, req, res);
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // Clients that refuse the certificate or drop the connection are part of the tests.
  server.on('tlsClientError', () => {});

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    port,
    url: (path, host = '127.0.0.1') => `https://${host}:${port}${normalise(path)}`,
    ca: certificate.cert,
    deliveries,
    openConnections: () => sockets.size,
    setSecret: (path, secret) => void secrets.set(normalise(path), secret),
    behave: (path, ...pathModes) => void modes.set(normalise(path), [...pathModes]),
    waitFor: (count, timeoutMs = 5000) =>
      new Promise<void>((resolve, reject) => {
        if (deliveries.length >= count) return resolve();
        const wake = () => {
          if (deliveries.length < count) return;
          waiters.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(new Error(`the receiver got ${deliveries.length} deliveries, not ${count}, within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(wake);
      }),
    clear: () => {
      deliveries.length = 0;
      secrets.clear();
      modes.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * The set-up of a describe block whose tests each start an app delivering to one receiver: the
 * receiver runs for the whole block (its deliveries, secrets and modes forgotten before each test),
 * and the app a test starts with `startApp` is closed after that test. `receiver` stands in for the
 * running receiver (see standIn), so the block can name it from the start.
 */
export function useWebhookReceiver(): { receiver: WebhookReceiver; startApp: (options: TestAppOptions) => Promise<TestApp> } {
  let receiver: WebhookReceiver | undefined;
  let app: TestApp | undefined;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });
  beforeEach(() => receiver!.clear());
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });
  return {
    receiver: standIn('the webhook receiver', () => receiver),
    startApp: async (options) => {
      app = await startTestApp(options);
      return app;
    },
  };
}

/** 17:00 in Sydney (AEST, UTC+10) on a date in May 2026: after that day's publication. */
export const evening = (date: string) => `${date}T07:00:00.000Z`;
export const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

/**
 * What the delivery tests start from: an app (started with `startApp` of useWebhookReceiver) that
 * may reach the receiver, a key of `plan`, and `firstDate` stored, so the next import is a
 * publication; with the steps they take: subscribe a path of the receiver, publish a day (stored
 * as `dayOf` makes it, at that day's evening), and run the worker at an instant.
 */
export async function deliveryScenario(
  receiver: WebhookReceiver,
  startApp: (options: TestAppOptions) => Promise<TestApp>,
  options: { firstDate: string; plan: Plan; dayOf: (date: string) => RbaDay; now?: string; timeoutMs?: number },
) {
  const app = await startApp({
    now: options.now ?? evening(options.firstDate),
    config: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
    webhookNetwork: { ca: [receiver.ca], timeoutMs: options.timeoutMs ?? 2_000 },
  });
  const key = await app.createKey(options.plan);
  await app.importTable({ format: 'csv', publicationDate: null, days: [options.dayOf(options.firstDate)] });
  /** A subscription to `path` on the receiver, which learns its signing secret; its id. */
  const subscribe = async (path: string): Promise<string> => {
    const res = await app.json('/api/webhook-subscriptions', {
      key,
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: { url: receiver.url(path) },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    receiver.setSecret(path, res.body.signingSecret);
    return res.body.subscription.id as string;
  };
  /** Stores `date` as that evening's publication; the import's result. */
  const publish = async (date: string) => {
    app.setNow(evening(date));
    return app.importTable({ format: 'csv', publicationDate: date, days: [options.dayOf(date)] });
  };
  /** Moves the clock to `at` and runs the worker; how many requests reached the receiver. */
  const runAt = async (at: string): Promise<number> => {
    app.setNow(at);
    const before = receiver.deliveries.length;
    await app.app.deliveries.runDue();
    return receiver.deliveries.length - before;
  };
  return { app, key, subscribe, publish, runAt };
}
