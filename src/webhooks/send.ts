// One webhook delivery attempt (D27, D28, D30 in docs/decisions.md): an HTTPS POST to an address
// checked at this very attempt. Network and target problems never throw: they become a failed
// AttemptResult.
import { readFileSync } from 'node:fs';
import type { ClientRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';
import { BadRequestError } from '../errors.js';
import { resolveWebhookTarget, type TargetPolicy } from './target.js';

export interface WebhookRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
}

export interface AttemptResult {
  /** true only for a 2xx answer within the timeout */
  ok: boolean;
  /** the HTTP status the receiver answered, null when there was no answer */
  status: number | null;
  /** why the attempt failed, for logs and the stored delivery (never contains secrets or the body) */
  error: string | null;
  /** the first RESPONSE_BODY_KEPT_BYTES of the receiver's body as text, for the delivery log; null without an answer */
  responseBody: string | null;
}

/** How much of a receiver's body the delivery log keeps: enough for an error message, never a whole page. */
export const RESPONSE_BODY_KEPT_BYTES = 4096;

/** The kept bytes as UTF-8 text; a character cut at the bound, an invalid byte or NUL (which text columns refuse) reads as U+FFFD. */
function keptText(chunks: Buffer[]): string {
  return Buffer.concat(chunks).subarray(0, RESPONSE_BODY_KEPT_BYTES).toString('utf8').replaceAll('\0', '\uFFFD');
}

export interface SenderOptions {
  policy: TargetPolicy;
  /** whole attempt: connect + TLS + response head + body; D28 says 10 s */
  timeoutMs: number;
  /** response body is read up to this many bytes and discarded, then the socket is closed */
  maxResponseBytes: number;
  /** extra trusted CAs; left out, Node's default store (system + NODE_EXTRA_CA_CERTS) applies */
  ca?: string | Buffer | (string | Buffer)[];
}

// Node's `ca` option replaces the default store instead of adding to it, so extra CAs are added to
// the bundled roots and NODE_EXTRA_CA_CERTS again (Node 20 has no tls.getCACertificates).
function secureContextWith(extra: string | Buffer | (string | Buffer)[]): SecureContext {
  const defaults: (string | Buffer)[] = [...rootCertificates];
  const extraFile = process.env.NODE_EXTRA_CA_CERTS;
  if (extraFile) {
    try {
      defaults.push(readFileSync(extraFile));
    } catch {
      // Node itself warns about an unreadable NODE_EXTRA_CA_CERTS at start-up.
    }
  }
  return createSecureContext({ ca: [...defaults, ...(Array.isArray(extra) ? extra : [extra])] });
}

type Phase = 'connecting' | 'tls' | 'waiting' | 'body';

const WAITING_FOR: Record<Phase, string> = {
  connecting: 'connecting',
  tls: 'the TLS handshake',
  waiting: 'the answer',
  body: 'the response body',
};

function describeFailure(phase: Phase, error: NodeJS.ErrnoException): string {
  const code = error.code ?? 'unknown';
  // Fixed texts: a socket error's message names the address, which is not the user's business.
  if (phase === 'connecting') {
    if (code === 'ECONNREFUSED') return 'connection refused';
    if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'host unreachable';
    return `connection failed (${code})`;
  }
  if (phase === 'tls') return `TLS handshake failed (${code})`;
  if (phase === 'waiting') return 'connection closed without an answer';
  return 'connection closed while reading the response body';
}

function withoutContentLength(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'content-length'));
}

export function createWebhookSender(options: SenderOptions): (request: WebhookRequest) => Promise<AttemptResult> {
  const secureContext = options.ca === undefined ? undefined : secureContextWith(options.ca);

  return async (request) => {
    let url: URL;
    let addresses: string[];
    try {
      url = new URL(request.url);
      addresses = await resolveWebhookTarget(url, options.policy);
    } catch (e) {
      return { ok: false, status: null, error: e instanceof BadRequestError ? e.message : 'url is not valid', responseBody: null };
    }
    return post(url, addresses, request, options, secureContext);
  };
}

function post(url: URL, addresses: string[], request: WebhookRequest, options: SenderOptions, secureContext: SecureContext | undefined) {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const isName = isIP(host) === 0;
  // The socket asks this instead of DNS, so it can only reach the addresses just checked.
  const lookup: LookupFunction = (_hostname, lookupOptions, callback) => {
    const family = lookupOptions.family === 'IPv4' ? 4 : lookupOptions.family === 'IPv6' ? 6 : (lookupOptions.family ?? 0);
    const entries = addresses.map((address) => ({ address, family: isIP(address) })).filter((entry) => family === 0 || entry.family === family);
    if (entries.length === 0) {
      callback(Object.assign(new Error('no checked address of that family'), { code: 'ENOTFOUND' }), '', 0);
    } else if (lookupOptions.all) {
      callback(null, entries);
    } else {
      callback(null, entries[0]!.address, entries[0]!.family);
    }
  };

  const name = host.replace(/\.+$/, '');
  let req: ClientRequest;
  try {
    req = httpsRequest({
      method: 'POST',
      host: isName ? name : host,
      port: url.port === '' ? 443 : Number(url.port),
      path: `${url.pathname}${url.search}`,
      headers: { ...withoutContentLength(request.headers), 'content-length': String(Buffer.byteLength(request.body)) },
      lookup,
      ...(isName ? { servername: name } : {}),
      // A fresh socket per attempt: a pooled one would have been connected to an earlier check's address.
      agent: false,
      ...(secureContext ? { secureContext } : {}),
    });
  } catch (e) {
    // Only a header the caller built wrongly gets here (an invalid character).
    return Promise.resolve({ ok: false, status: null, error: `request not sent (${(e as NodeJS.ErrnoException).code ?? 'invalid'})`, responseBody: null });
  }

  return new Promise<AttemptResult>((resolve) => {
    let phase: Phase = 'connecting';
    let status: number | null = null;
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let settled = false;
    const settle = (failure: Omit<AttemptResult, 'responseBody'>) => {
      if (settled) return;
      settled = true;
      const result: AttemptResult = { ...failure, responseBody: status === null ? null : keptText(kept) };
      clearTimeout(timer);
      // Nothing more is wanted from this connection: no body left to drain, no socket kept.
      req.destroy();
      resolve(result);
    };
    const outcome = (): Omit<AttemptResult, 'responseBody'> =>
      status !== null && status >= 200 && status < 300
        ? { ok: true, status, error: null }
        : { ok: false, status, error: status !== null && status >= 300 && status < 400 ? `redirect (${status}) not followed` : `HTTP ${status}` };

    // One timer for the whole attempt, so a server that answers the head and then stalls is caught too.
    const timer = setTimeout(
      () => settle({ ok: false, status, error: `timed out after ${options.timeoutMs} ms waiting for ${WAITING_FOR[phase]}` }),
      options.timeoutMs,
    );

    req.on('socket', (socket) => {
      socket.once('connect', () => (phase = 'tls'));
      socket.once('secureConnect', () => (phase = 'waiting'));
    });
    req.on('error', (error: NodeJS.ErrnoException) => settle({ ok: false, status, error: describeFailure(phase, error) }));
    req.on('response', (res) => {
      phase = 'body';
      status = res.statusCode ?? null;
      let received = 0;
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (keptBytes < RESPONSE_BODY_KEPT_BYTES) {
          kept.push(chunk);
          keptBytes += chunk.length;
        }
        if (received >= options.maxResponseBytes) settle(outcome());
      });
      res.on('end', () => settle(outcome()));
      res.on('error', (error: NodeJS.ErrnoException) => settle({ ok: false, status, error: describeFailure('body', error) }));
      if (options.maxResponseBytes <= 0) settle(outcome());
    });
    req.end(request.body);
  });
}
