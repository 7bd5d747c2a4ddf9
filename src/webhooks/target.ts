// Where a webhook may point (D26, D30, D34 in docs/decisions.md). A subscription's URL is checked
// when it is created and again, with a fresh resolution, at every delivery attempt; the sender then
// connects only to the addresses returned here, so a name cannot be re-pointed at a private address
// between the check and the connection.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { BadRequestError } from '../errors.js';
import { parseIpAddress } from '../ip-address.js';

/** All addresses of a name. */
export type Resolver = (hostname: string) => Promise<string[]>;

export const systemResolver: Resolver = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

export interface TargetPolicy {
  /** D34: WEBHOOK_ALLOW_PRIVATE_TARGETS lifts the host and address restrictions; https stays required */
  allowPrivate: boolean;
  resolve: Resolver;
  /** bound on one resolution, e.g. 5000 */
  resolveTimeoutMs: number;
}

export const MAX_WEBHOOK_URL_LENGTH = 2048;

// Names that by convention (RFC 6761, RFC 6762) or common practice stay inside a machine or network.
const RESERVED_SUFFIXES = ['localhost', 'local', 'internal'];

// The only IPv6 block allocated for global unicast. Outside it sit the IPv4-compatible ::/96, the
// discard, ULA, link-local and other blocks ipaddr.js may not all name.
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/** The host as the resolver and the socket want it: no IPv6 brackets, no trailing dots. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.+$/, '');
}

/** The URL's host when it is an IP literal (the URL parser has already normalised every IPv4 form). */
function ipLiteral(url: URL): string | null {
  const host = bareHost(url);
  if (url.hostname.startsWith('[')) return host;
  return ipaddr.IPv4.isValidFourPartDecimal(host) ? host : null;
}

/** Syntax and host-name rules of D26 without DNS. Returns the parsed URL; throws BadRequestError naming the rule broken. */
export function parseWebhookUrl(text: string, allowPrivate: boolean): URL {
  if (text.length > MAX_WEBHOOK_URL_LENGTH) throw new BadRequestError(`url must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  // The URL parser silently drops surrounding spaces and inner tabs and newlines; refuse them instead
  // of storing something other than what was sent.
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses
  if (/[\s\u0000-\u001f\u007f]/.test(text)) throw new BadRequestError('url must not contain spaces or control characters');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new BadRequestError('url must be an absolute https URL');
  }
  if (url.protocol !== 'https:') throw new BadRequestError('url must use https');
  if (url.href.length > MAX_WEBHOOK_URL_LENGTH) throw new BadRequestError(`url must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  if (url.username !== '' || url.password !== '') throw new BadRequestError('url must not contain a user name or password');
  if (allowPrivate) return url;

  const literal = ipLiteral(url);
  if (literal !== null) {
    if (!isPublicAddress(literal)) throw new BadRequestError(`url host ${url.hostname} is not a public address`);
    return url;
  }
  const name = bareHost(url);
  if (RESERVED_SUFFIXES.some((suffix) => name === suffix || name.endsWith(`.${suffix}`))) {
    throw new BadRequestError(`url host ${url.hostname} is a local name (localhost, *.localhost, *.local and *.internal are not allowed)`);
  }
  return url;
}

/** true for public unicast addresses only; an IPv4-mapped IPv6 address is judged as the IPv4 address it maps. */
export function isPublicAddress(address: string): boolean {
  const parsed = parseIpAddress(address);
  if (parsed === null) return false;
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  // 6to4, Teredo and NAT64 (rfc6052) have ranges of their own, so embedded private IPv4 addresses are
  // refused with them; so is the embedded public one, which a webhook has no need to reach that way.
  return v6.range() === 'unicast' && v6.match(GLOBAL_UNICAST_V6);
}

const NO_ANSWER = Symbol('timeout');

async function resolveWithin(policy: TargetPolicy, host: string): Promise<string[] | typeof NO_ANSWER> {
  const answer = policy.resolve(host);
  // The lookup cannot be cancelled: a late rejection after the timeout must not go unhandled.
  answer.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof NO_ANSWER>((resolve) => {
    timer = setTimeout(() => resolve(NO_ANSWER), policy.resolveTimeoutMs);
  });
  try {
    return await Promise.race([answer, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Resolves the URL's host (an IP literal resolves to itself) within the timeout and returns the
 * addresses to connect to. Throws BadRequestError when the URL breaks a D26 rule, when the name does
 * not resolve or resolution times out, and (unless policy.allowPrivate) when ANY address is not public.
 * Messages name the host and the rule, never the addresses.
 */
export async function resolveWebhookTarget(url: URL, policy: TargetPolicy): Promise<string[]> {
  // Re-applies the syntax and host rules: the URL may have been stored before a rule changed.
  parseWebhookUrl(url.href, policy.allowPrivate);
  const literal = ipLiteral(url);
  if (literal !== null) return [literal];

  const host = bareHost(url);
  let answer: string[] | typeof NO_ANSWER;
  try {
    answer = await resolveWithin(policy, host);
  } catch {
    throw new BadRequestError(`url host ${url.hostname} does not resolve`);
  }
  if (answer === NO_ANSWER) throw new BadRequestError(`url host ${url.hostname} did not resolve within ${policy.resolveTimeoutMs} ms`);
  const addresses = answer.map((address) => address.replace(/^\[(.*)\]$/, '$1'));
  if (addresses.length === 0 || !addresses.every((address) => isIP(address) !== 0)) {
    throw new BadRequestError(`url host ${url.hostname} does not resolve`);
  }
  // One private address is enough to refuse: the socket may pick any of them.
  if (!policy.allowPrivate && !addresses.every(isPublicAddress)) {
    throw new BadRequestError(`url host ${url.hostname} resolves to an address that is not public`);
  }
  return addresses;
}
