// What a key restriction may be and what it lets through (src/key-restrictions.ts), without a
// database: CIDR ranges read and made canonical, endpoint names and the one table from names to
// paths, expiry at 00:00 UTC, the cap's bounds.
import { describe, expect, it } from 'vitest';
import {
  checkExpiresOn,
  checkMonthlyCap,
  checkRestrictions,
  endpointOf,
  hasExpired,
  parseAllowedEndpoints,
  parseAllowedIps,
  parseCidr,
  preparedRestrictions,
} from '../../src/key-restrictions.js';
import { parseIpAddress } from '../../src/ip-address.js';

describe('parseCidr', () => {
  it.each([
    ['203.0.113.0/24', '203.0.113.0/24'],
    [' 203.0.113.77/24 ', '203.0.113.0/24'],
    ['198.51.100.7', '198.51.100.7/32'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['2001:DB8::/32', '2001:db8::/32'],
    ['2001:db8:1:2:3:4:5:6/64', '2001:db8:1:2::/64'],
    ['[2001:db8::1]', '2001:db8::1/128'],
    ['::/0', '::/0'],
  ])('%s is %s', (text, canonical) => expect(parseCidr(text)).toBe(canonical));

  it.each([
    '',
    'nonsense',
    '10.0.0/8',
    '010.0.0.1/8',
    '203.0.113.0/33',
    '2001:db8::/129',
    '203.0.113.0/',
    '203.0.113.0/-1',
    '203.0.113.0/1a',
    '::ffff:10.0.0.0/104',
    '10.0.0.0/8/8',
  ])('%j is refused, named', (text) => expect(() => parseCidr(text)).toThrow(/allowedIps: .* is not a CIDR range/));

  it('keeps at most 20 ranges, without repeats', () => {
    expect(parseAllowedIps(['10.0.0.1/8', '10.9.9.9/8', '::1'])).toEqual(['10.0.0.0/8', '::1/128']);
    expect(parseAllowedIps(Array.from({ length: 21 }, () => '10.0.0.0/8'))).toEqual(['10.0.0.0/8']);
    expect(() => parseAllowedIps(Array.from({ length: 21 }, (_, i) => `10.${i}.0.0/16`))).toThrow(/at most 20/);
    expect(() => parseAllowedIps([])).toThrow(/at least one/);
  });
});

describe('endpoint names', () => {
  it('map each route path to one name, in one table', () => {
    expect(
      ['/latest', '/latest/:currency', '/:date', '/:date/:currency', '/timeseries', '/convert', '/fluctuation', '/averages', '/mcp'].map(endpointOf),
    ).toEqual(['latest', 'latest', 'historical', 'historical', 'timeseries', 'convert', 'fluctuation', 'averages', 'mcp']);
    expect(['/api/webhook-subscriptions', '/api/webhook-subscriptions/:id/deliveries/:deliveryId/redeliver'].map(endpointOf)).toEqual(['webhooks', 'webhooks']);
    expect(['/api/alerts', '/api/alerts/:id/test'].map(endpointOf)).toEqual(['alerts', 'alerts']);
    expect(['/', '/status', '/symbols', '/api/alertsx', '/api'].map(endpointOf)).toEqual([null, null, null, null, null]);
  });

  it('are read without repeats in the table order; an unknown one is refused', () => {
    expect(parseAllowedEndpoints(['mcp', 'latest', 'mcp'])).toEqual(['latest', 'mcp']);
    expect(() => parseAllowedEndpoints(['latest', 'Latest'])).toThrow(/'Latest' is not an endpoint name/);
    expect(() => parseAllowedEndpoints([])).toThrow(/at least one/);
  });
});

describe('checkRestrictions', () => {
  const at = (path: string, address: string) => ({ path, client: parseIpAddress(address)! });
  const restricted = preparedRestrictions({ allowedIps: ['203.0.113.0/24', '2001:db8::/32'], allowedEndpoints: ['latest'], expiresOn: null, monthlyCap: null });

  it('lets through a request inside every restriction', () => {
    expect(() => checkRestrictions(restricted, at('/latest', '203.0.113.9'))).not.toThrow();
    expect(() => checkRestrictions(restricted, at('/latest/:currency', '2001:db8:ffff::1'))).not.toThrow();
  });

  it('refuses, naming the restriction: the endpoint first, then the address', () => {
    expect(() => checkRestrictions(restricted, at('/:date', '198.51.100.1'))).toThrow(/may not call historical/);
    expect(() => checkRestrictions(restricted, at('/symbols', '203.0.113.9'))).toThrow(/may not call this endpoint/);
    expect(() => checkRestrictions(restricted, at('/latest', '198.51.100.1'))).toThrow(/198\.51\.100\.1.*allowedIps/);
    expect(() => checkRestrictions(restricted, at('/latest', '2001:db9::1'))).toThrow(/allowedIps/);
  });

  it('lets everything through without restrictions', () => {
    const none = preparedRestrictions({ allowedIps: null, allowedEndpoints: null, expiresOn: null, monthlyCap: null });
    expect(() => checkRestrictions(none, at('/symbols', '198.51.100.1'))).not.toThrow();
  });
});

describe('expiry and cap', () => {
  it('expire from 00:00 UTC on the day', () => {
    expect(hasExpired('2026-05-13', new Date('2026-05-12T23:59:59.999Z'))).toBe(false);
    expect(hasExpired('2026-05-13', new Date('2026-05-13T00:00:00Z'))).toBe(true);
    expect(hasExpired(null, new Date())).toBe(false);
  });

  it('may be set for today (UTC) or later, never earlier', () => {
    const now = new Date('2026-05-12T23:30:00Z');
    expect(checkExpiresOn('2026-05-12', now)).toBe('2026-05-12');
    expect(() => checkExpiresOn('2026-05-11', now)).toThrow(/has passed/);
  });

  it('caps at a whole number up to the plan quota', () => {
    const quota = { limit: 5_000, planName: 'Starter' };
    expect(checkMonthlyCap(0, quota)).toBe(0);
    expect(checkMonthlyCap(5_000, quota)).toBe(5_000);
    expect(() => checkMonthlyCap(5_001, quota)).toThrow(/more than the Starter plan's 5000/);
    expect(() => checkMonthlyCap(-1, quota)).toThrow(/whole number/);
    expect(() => checkMonthlyCap(1.5, quota)).toThrow(/whole number/);
  });
});
