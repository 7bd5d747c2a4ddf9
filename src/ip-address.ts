// IP addresses as they arrive in text: a socket's peer, X-Forwarded-For hops, TRUST_PROXY entries,
// a webhook URL's literal host and DNS answers. One reading for all of them, so the rate limiter and
// the webhook address checks can never disagree about what an address is.
import { isIPv4 } from 'node:net';
import ipaddr from 'ipaddr.js';

export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

/** how a dual-stack socket names an IPv4 peer */
const MAPPED_PREFIX = '::ffff:';

/**
 * The address `text` is, or null. IPv6 may be in brackets; IPv4 only as a dotted quad (ipaddr.js
 * would also read '10.0.0' or octal '010.0.0.1', which a socket may read otherwise). An IPv4-mapped
 * IPv6 address (an IPv4 client on a dual-stack socket) is the IPv4 address it maps.
 */
export function parseIpAddress(text: string): IpAddress | null {
  // Each form goes to its own family's parser once (ipaddr.parse tries both, and validates first):
  // it runs on every request, for the socket's peer.
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (isIPv4(bare)) return ipaddr.IPv4.parse(bare);
  if (bare.startsWith(MAPPED_PREFIX) && isIPv4(bare.slice(MAPPED_PREFIX.length))) return ipaddr.IPv4.parse(bare.slice(MAPPED_PREFIX.length));
  if (!bare.includes(':')) return null;
  let address: ipaddr.IPv6;
  try {
    address = ipaddr.IPv6.parse(bare);
  } catch {
    return null;
  }
  return address.isIPv4MappedAddress() ? address.toIPv4Address() : address;
}
