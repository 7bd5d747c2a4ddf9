// Unit tests of src/ip-address.ts: the one reading of an address in text, shared by the client's
// address, TRUST_PROXY, key restrictions and the webhook target checks.
import { describe, expect, it } from 'vitest';
import { parseIpAddress } from '../../src/ip-address.js';

describe('parseIpAddress', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['0.0.0.0', '0.0.0.0'],
    ['255.255.255.255', '255.255.255.255'],
    ['[203.0.113.5]', '203.0.113.5'],
    ['::1', '::1'],
    ['[2001:db8::5]', '2001:db8::5'],
    ['2001:0DB8:0000::0005', '2001:db8::5'],
    ['fe80::1%eth0', 'fe80::1%eth0'],
    ['::ffff:203.0.113.5', '203.0.113.5'],
    ['::FFFF:203.0.113.5', '203.0.113.5'],
    ['0:0:0:0:0:ffff:203.0.113.5', '203.0.113.5'],
    ['::ffff:cb00:7105', '203.0.113.5'],
    ['[::ffff:127.0.0.1]', '127.0.0.1'],
  ])('%s is %s', (text, address) => {
    expect(parseIpAddress(text)?.toString()).toBe(address);
  });

  it.each([
    '',
    'localhost',
    '10.0.0',
    '10.0.0.256',
    '010.0.0.1',
    '0x7f.0.0.1',
    '2130706433',
    '10.0.0.1:8080',
    '[10.0.0.1',
    '2001:db8::g',
    '::ffff:10.0.0.256',
    ' 10.0.0.1',
    '1.2.3.4\n',
  ])('%j is not an address', (text) => {
    expect(parseIpAddress(text)).toBeNull();
  });
});
