// Who the client is (D19, D20 in docs/decisions.md): the socket's peer, or the forwarded address
// when the peer is a configured trusted proxy. IPv6 clients are grouped by their /64, which one host
// usually holds whole.
import ipaddr from 'ipaddr.js';
import { parseIpAddress, type IpAddress } from '../ip-address.js';

export type TrustedProxies = readonly [IpAddress, number][];

/** A header's or a setting's address, spaces around it allowed. */
const parseAddress = (text: string): IpAddress | null => parseIpAddress(text.trim());

/** Parses TRUST_PROXY: comma-separated addresses or CIDR ranges. Throws on a bad entry. */
export function parseTrustedProxies(list: string): TrustedProxies {
  return list
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      if (entry.includes('/')) {
        if (!parseAddress(entry.slice(0, entry.indexOf('/')))) throw new Error(`'${entry}' is not an IP address or CIDR range`);
        return ipaddr.parseCIDR(entry);
      }
      const address = parseAddress(entry);
      if (!address) throw new Error(`'${entry}' is not an IP address or CIDR range`);
      return [address, address.kind() === 'ipv4' ? 32 : 128] as [IpAddress, number];
    });
}

function isTrusted(address: IpAddress, proxies: TrustedProxies): boolean {
  return proxies.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits));
}

export interface Peer {
  /** the client's address as the rate limiter counts it */
  client: string;
  /** the client's own address, whole (a key's allowed addresses are matched against it) */
  address: IpAddress;
  /** the socket's peer is this machine */
  socketLoopback: boolean;
  /** the request came through a trusted proxy */
  viaTrustedProxy: boolean;
}

/** Who the client is, from the socket's peer address and the request's X-Forwarded-For. */
export function identifyPeer(socketAddress: string | undefined, forwardedFor: string | null, proxies: TrustedProxies): Peer {
  return forwardedPeer(socketPeer(socketAddress, proxies), forwardedFor, proxies);
}

/** The client as the socket alone tells it: the same for every request on one connection. */
export function socketPeer(socketAddress: string | undefined, proxies: TrustedProxies): Peer {
  const socket = parseAddress(socketAddress ?? '127.0.0.1') ?? ipaddr.parse('127.0.0.1');
  return { client: clientKey(socket), address: socket, socketLoopback: socket.range() === 'loopback', viaTrustedProxy: isTrusted(socket, proxies) };
}

/** The client as one request on the socket tells it: through a trusted proxy, the forwarded address. */
export function forwardedPeer(socket: Peer, forwardedFor: string | null, proxies: TrustedProxies): Peer {
  if (!socket.viaTrustedProxy || !forwardedFor) return socket;
  // The nearest hop not ours is the client; hops further left were written by the client itself.
  let client = socket.address;
  const hops = forwardedFor.split(',').map(parseAddress);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i];
    if (!hop) break;
    client = hop;
    if (!isTrusted(hop, proxies)) break;
  }
  return { ...socket, client: clientKey(client), address: client };
}

/** The address as the rate limiter counts it: IPv6 by its /64. */
function clientKey(address: IpAddress): string {
  return address.kind() === 'ipv6'
    ? `${(address as ipaddr.IPv6).parts
        .slice(0, 4)
        .map((p) => p.toString(16))
        .join(':')}::/64`
    : address.toString();
}
