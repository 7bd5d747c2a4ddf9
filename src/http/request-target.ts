// The request target (RFC 9112 section 3.2) as the URL the REST app routes on. Node hands the
// target over as sent; it is trusted nowhere else, so every shape of it is judged here.
import type { IncomingMessage } from 'node:http';
import { BadRequestError } from '../errors.js';

const ORIGIN = 'http://localhost';
const ABSOLUTE_FORM = /^https?:\/\//i;

function parsed(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

/**
 * The URL of a request: origin-form (`/latest?symbols=USD`) or absolute-form
 * (`http://host/latest`, whose host is ignored). A target that starts with `//` is a path of empty
 * segments, not a scheme-relative URL: `//` routes as `/`, as `/latest/` does as `/latest`.
 * Anything else (`*`, `host:443`, an absolute-form target whose authority does not parse) and an
 * HTTP/1.1 request without a Host header are refused.
 */
export function requestUrl(req: IncomingMessage): URL {
  const target = req.url ?? '';
  if (req.httpVersionMajor === 1 && req.httpVersionMinor === 1 && req.headers.host === undefined) {
    throw new BadRequestError('An HTTP/1.1 request needs a Host header');
  }
  const url = target.startsWith('/') ? parsed(ORIGIN + target) : ABSOLUTE_FORM.test(target) ? parsed(target) : null;
  if (url === null) {
    throw new BadRequestError('The request target must be a path starting with / (or an absolute http or https URL)');
  }
  return url;
}
