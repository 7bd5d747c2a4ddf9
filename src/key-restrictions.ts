// Key restrictions (docs/architecture.md, "Key restrictions"): the addresses a key may be used from, the
// endpoints it may call, the day it stops working and the share of the account's units it may take
// each period. What a restriction may be is checked here when it is set; what a request may do is
// checked here right after its key is known, from the key's cached record. The cap is the one
// restriction checked later, inside the quota's grant, since it is a count (src/db/quota.ts).
import ipaddr from 'ipaddr.js';
import { BadRequestError, KeyRestrictedError } from './errors.js';
import { parseIpAddress, type IpAddress } from './ip-address.js';

/** The names a key's `allowedEndpoints` are made of. */
export const KEY_ENDPOINTS = ['latest', 'historical', 'timeseries', 'convert', 'fluctuation', 'averages', 'export', 'webhooks', 'alerts', 'mcp'] as const;
export type KeyEndpoint = (typeof KEY_ENDPOINTS)[number];

/**
 * The one table from a name to what it covers: the public paths (in the router's syntax) it names,
 * or every path under a prefix. A keyed path no name covers is refused to a key limited to a list.
 */
const ENDPOINT_PATHS: Readonly<Record<KeyEndpoint, { paths: readonly string[] } | { under: string }>> = {
  latest: { paths: ['/latest', '/latest/:currency'] },
  historical: { paths: ['/:date', '/:date/:currency'] },
  timeseries: { paths: ['/timeseries'] },
  // keyed /convert, dated or not (keyless /convert has no key to restrict)
  convert: { paths: ['/convert'] },
  fluctuation: { paths: ['/fluctuation'] },
  averages: { paths: ['/averages'] },
  export: { paths: ['/export'] },
  webhooks: { under: '/api/webhook-subscriptions' },
  alerts: { under: '/api/alerts' },
  mcp: { paths: ['/mcp'] },
};

const endpointsByPath = new Map<string, KeyEndpoint | null>();

/** The name that covers a route's path, or null. */
export function endpointOf(path: string): KeyEndpoint | null {
  let name = endpointsByPath.get(path);
  if (name === undefined) {
    name =
      KEY_ENDPOINTS.find((candidate) => {
        const covers = ENDPOINT_PATHS[candidate];
        return 'paths' in covers ? covers.paths.includes(path) : path === covers.under || path.startsWith(`${covers.under}/`);
      }) ?? null;
    endpointsByPath.set(path, name);
  }
  return name;
}

export const MAX_ALLOWED_IPS = 20;

/** A key's restrictions; null is no restriction of that kind. */
export interface KeyRestrictions {
  /** CIDR ranges in their canonical form (`203.0.113.0/24`, `2001:db8::/32`) */
  allowedIps: readonly string[] | null;
  allowedEndpoints: readonly KeyEndpoint[] | null;
  /** 'YYYY-MM-DD': from 00:00 UTC that day the key is refused */
  expiresOn: string | null;
  monthlyCap: number | null;
}

/** A key's restrictions ready for its requests: the ranges parsed once, when its record is read. */
export interface CheckedRestrictions {
  ranges: readonly [IpAddress, number][] | null;
  endpoints: ReadonlySet<string> | null;
  expiresOn: string | null;
}

export function preparedRestrictions(restrictions: KeyRestrictions): CheckedRestrictions {
  return {
    ranges: restrictions.allowedIps && restrictions.allowedIps.map((range) => ipaddr.parseCIDR(range) as [IpAddress, number]),
    endpoints: restrictions.allowedEndpoints && new Set(restrictions.allowedEndpoints),
    expiresOn: restrictions.expiresOn,
  };
}

/** The UTC date of an instant, 'YYYY-MM-DD'. */
export const utcDate = (now: Date): string => now.toISOString().slice(0, 10);

/** Whether a key that expires on `expiresOn` is refused at `now`: from 00:00 UTC that day. */
export function hasExpired(expiresOn: string | null, now: Date): boolean {
  return expiresOn !== null && utcDate(now) >= expiresOn;
}

/** Paths every key may call whatever endpoints it is limited to: a key's own standing (D46 in docs/decisions.md). */
const OPEN_TO_EVERY_KEY: ReadonlySet<string> = new Set(['/usage']);

/** Refuses a request its key's restrictions do not allow (403 key_restricted, naming which). */
export function checkRestrictions(restrictions: CheckedRestrictions, request: { path: string; client: IpAddress }): void {
  const { ranges, endpoints } = restrictions;
  if (endpoints && !OPEN_TO_EVERY_KEY.has(request.path)) {
    const name = endpointOf(request.path);
    if (name === null || !endpoints.has(name)) {
      const what = name ?? 'this endpoint';
      throw new KeyRestrictedError(`This API key may not call ${what}: its allowedEndpoints restriction allows only ${[...endpoints].join(', ')}`);
    }
  }
  if (ranges) {
    const { client } = request;
    if (!ranges.some(([range, bits]) => range.kind() === client.kind() && client.match(range, bits))) {
      throw new KeyRestrictedError(`This API key may not be used from ${client.toString()}: the address is outside its allowedIps restriction`);
    }
  }
}

/**
 * A CIDR range as typed (`203.0.113.0/24`, `2001:db8::/32`; a bare address is the one address) in
 * its canonical form, the address bits past the prefix cleared. Throws 400 naming the entry.
 */
export function parseCidr(text: string): string {
  const entry = text.trim();
  const slash = entry.indexOf('/');
  const address = parseIpAddress(slash < 0 ? entry : entry.slice(0, slash));
  const bitsText = slash < 0 ? null : entry.slice(slash + 1);
  const refused = () => new BadRequestError(`allowedIps: '${text}' is not a CIDR range (such as 203.0.113.0/24 or 2001:db8::/32)`);
  // An IPv4-mapped IPv6 range would be read as IPv4 with a prefix meant for IPv6.
  if (!address || (address.kind() === 'ipv4' && entry.slice(0, slash < 0 ? undefined : slash).includes(':'))) throw refused();
  const maxBits = address.kind() === 'ipv4' ? 32 : 128;
  if (bitsText !== null && !/^\d{1,3}$/.test(bitsText)) throw refused();
  const bits = bitsText === null ? maxBits : Number(bitsText);
  if (bits > maxBits) throw refused();
  const network =
    address.kind() === 'ipv4'
      ? ipaddr.IPv4.networkAddressFromCIDR(`${address.toString()}/${bits}`)
      : ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/${bits}`);
  return `${network.toString()}/${bits}`;
}

/** At most MAX_ALLOWED_IPS ranges, canonical and without repeats; an empty list is refused. */
export function parseAllowedIps(entries: readonly string[]): string[] {
  if (entries.length === 0) throw new BadRequestError('allowedIps: give at least one CIDR range, or remove the restriction');
  const ranges = [...new Set(entries.map(parseCidr))];
  if (ranges.length > MAX_ALLOWED_IPS) throw new BadRequestError(`allowedIps: at most ${MAX_ALLOWED_IPS} CIDR ranges (got ${ranges.length})`);
  return ranges;
}

/** A non-empty list of endpoint names, without repeats, in the table's order; an unknown name is refused. */
export function parseAllowedEndpoints(entries: readonly string[]): KeyEndpoint[] {
  if (entries.length === 0) throw new BadRequestError('allowedEndpoints: give at least one endpoint name, or remove the restriction');
  for (const entry of entries) {
    if (!(KEY_ENDPOINTS as readonly string[]).includes(entry)) {
      throw new BadRequestError(`allowedEndpoints: '${entry}' is not an endpoint name; use ${KEY_ENDPOINTS.join(', ')}`);
    }
  }
  return KEY_ENDPOINTS.filter((name) => entries.includes(name));
}

/** An expiry date: a real 'YYYY-MM-DD', today (UTC) or later. */
export function checkExpiresOn(date: string, now: Date): string {
  if (date < utcDate(now)) throw new BadRequestError(`expiresOn: ${date} has passed; give today (UTC) or a later date`);
  return date;
}

/** A cap: a whole number of requests, at most the plan's quota. */
export function checkMonthlyCap(cap: number, quota: { limit: number; planName: string }): number {
  if (!Number.isInteger(cap) || cap < 0) throw new BadRequestError(`monthlyCap: ${cap} is not a whole number of requests (0 or more)`);
  if (cap > quota.limit) throw new BadRequestError(`monthlyCap: ${cap} is more than the ${quota.planName} plan's ${quota.limit} requests`);
  return cap;
}
