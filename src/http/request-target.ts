// The request target (RFC 9112 section 3.2) as the URL the REST app routes on. Node hands the
// target over as sent; it is trusted nowhere else, so every shape of it is judged here.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { LRUCache } from 'lru-cache';
import { BadRequestError } from '../errors.js';
import { refuseRequest } from './refusal.js';

const ORIGIN = 'http://localhost';
const ABSOLUTE_FORM = /^https?:\/\//i;
/** uri-host [":" port] (RFC 9110 section 7.2): a name or IPv4 address, or an IPv6 one in brackets */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~!$&'()*+,;=%-]+)(?::\d*)?$/;
const MAX_KNOWN_HOSTS = 1_000;

function parsed(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

// Most requests repeat a few Host values: each is checked once, and the answer kept.
const hostChecks = new LRUCache<string, boolean>({
  max: MAX_KNOWN_HOSTS,
  memoMethod: (host) => HOST.test(host) && parsed(`http://${host}/`) !== null,
});
const isHost = (host: string): boolean => hostChecks.memo(host);

/**
 * The URL of a request: origin-form (`/latest?symbols=USD`) or absolute-form
 * (`http://host/latest`, whose host is ignored). A target that starts with `//` is a path of empty
 * segments, not a scheme-relative URL: `//` routes as `/`, as `/latest/` does as `/latest`.
 * Anything else (`*`, `host:443`, an absolute-form target whose authority does not parse), an
 * HTTP/1.1 request without a Host header and a Host that is no host (RFC 9112 section 3.2) are refused.
 */
export function requestUrl(req: IncomingMessage): URL {
  const target = req.url ?? '';
  const { host } = req.headers;
  if (host === undefined) {
    if (req.httpVersionMajor === 1 && req.httpVersionMinor === 1) throw new BadRequestError('An HTTP/1.1 request needs a Host header');
  } else if (!isHost(host)) {
    throw new BadRequestError('The Host header must be a host name or address, with an optional port');
  }
  const url = target.startsWith('/') ? parsed(ORIGIN + target) : ABSOLUTE_FORM.test(target) ? parsed(target) : null;
  if (url === null) {
    throw new BadRequestError('The request target must be a path starting with / (or an absolute http or https URL)');
  }
  return url;
}

/** The request's URL; or null once the request has been refused, in the envelope, for its target or Host. */
export function acceptedUrl(req: IncomingMessage, res: ServerResponse): URL | null {
  try {
    return requestUrl(req);
  } catch (error) {
    if (!(error instanceof BadRequestError)) throw error;
    refuseRequest(req, res, error);
    return null;
  }
}

/**
 * `handler` behind the same rules, for a handler that builds its own URL from the target and the
 * Host header (the internal endpoint's adapter, which answers a 500 with a stack trace for a Host
 * it cannot parse).
 */
export function refusingInvalidTargets(handler: RequestListener): RequestListener {
  return (req, res) => {
    if (acceptedUrl(req, res)) handler(req, res);
  };
}
