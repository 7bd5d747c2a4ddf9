// The request target (RFC 9112 section 3.2) as the URL a listener routes on. Node hands the target
// over as sent; it is trusted nowhere else, so every shape of it is judged here, for both listeners.
import type { IncomingMessage } from 'node:http';
import { BadRequestError } from '../errors.js';

const ORIGIN = 'http://localhost';
const ABSOLUTE_FORM = /^https?:\/\//i;
/** uri-host [":" port] (RFC 9110 section 7.2): a name or IPv4 address, or an IPv6 one in brackets */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~!$&'()*+,;=%-]+)(?::\d*)?$/;

function parsed(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

const isHost = (host: string): boolean => HOST.test(host) && parsed(`http://${host}/`) !== null;

/** What of a request the target's judgement reads: its target, Host header and version. */
export type RequestLine = Pick<IncomingMessage, 'url' | 'httpVersionMajor' | 'httpVersionMinor'> & {
  headers: Pick<IncomingMessage['headers'], 'host'>;
  /** the header fields as sent (Node keeps only the first Host in `headers`) */
  rawHeaders?: readonly string[];
};

/** How many times a field was sent. */
function timesSent(raw: readonly string[] | undefined, name: string): number {
  let seen = 0;
  for (let i = 0; raw && i < raw.length; i += 2) if (raw[i]!.length === name.length && raw[i]!.toLowerCase() === name) seen++;
  return seen;
}

/**
 * The URL of a request: origin-form (`/latest?symbols=USD`) or absolute-form
 * (`http://host/latest`, whose host is ignored). A target that starts with `//` is a path of empty
 * segments, not a scheme-relative URL: `//` routes as `/`, as `/latest/` does as `/latest`.
 * Anything else (`*`, `host:443`, an absolute-form target whose authority does not parse), an
 * HTTP/1.1 request without a Host header, a Host sent twice and a Host that is no host (RFC 9112
 * section 3.2) are refused with 400.
 */
export function requestUrl(req: RequestLine): URL {
  const target = req.url ?? '';
  const { host } = req.headers;
  if (host !== undefined && timesSent(req.rawHeaders, 'host') > 1) throw new BadRequestError('Send one Host header, not several');
  // The usual request (origin-form, with a Host) is one parse: its Host as the URL's authority, which
  // judges it too. Whatever that parse refuses is judged part by part below, to say which was wrong.
  if (host !== undefined && target.startsWith('/') && HOST.test(host)) {
    const url = parsed(`http://${host}${target}`);
    if (url !== null) return url;
  }
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
