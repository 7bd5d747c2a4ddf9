// IP addresses as they arrive in text: a socket's peer, X-Forwarded-For hops, TRUST_PROXY entries,
// a webhook URL's literal host and DNS answers. One reading for all of them, so the rate limiter and
// the webhook address checks can never disagree about what an address is.
import ipaddr from 'ipaddr.js';

export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * The address `text` is, or null. IPv6 may be in brackets; IPv4 only as a dotted quad (ipaddr.js
 * would also read '10.0.0' or octal '010.0.0.1', which a socket may read otherwise). An IPv4-mapped
 * IPv6 address (an IPv4 client on a dual-stack socket) is the IPv4 address it maps.
 */
export function parseIpAddress(text: string): IpAddress | null {
  const bare = text.replace(/^\[(.*)\]$/, '$1');
  if (!bare.includes(':') && !ipaddr.IPv4.isValidFourPartDecimal(bare)) return null;
  if (!ipaddr.isValid(bare)) return null;
  const address = ipaddr.parse(bare);
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address;
}
