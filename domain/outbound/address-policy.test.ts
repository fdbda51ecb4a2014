import { describe, expect, it } from 'vitest';
import { checkDestinationAddress, isIpLiteral } from './address-policy.ts';

const allowed: string[] = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.216.34',
  '100.63.255.255', // just below CGNAT
  '100.128.0.0', // just above CGNAT
  '172.15.255.255', // just below 172.16/12
  '172.32.0.0', // just above 172.16/12
  '192.169.0.1',
  '2606:4700::1111',
  '2a00:1450:4001:82b::200e',
  '::ffff:8.8.8.8', // mapped public: judged by its IPv4
  '::ffff:808:808',
  '2002:0808:0808::1', // 6to4 of 8.8.8.8
  '64:ff9b::8.8.8.8', // NAT64 of 8.8.8.8
];

const refused: Array<[string, string]> = [
  ['127.0.0.1', 'loopback address'],
  ['127.255.255.254', 'loopback address'],
  ['10.0.0.1', 'private address'],
  ['10.255.255.255', 'private address'],
  ['172.16.0.1', 'private address'],
  ['172.31.255.255', 'private address'],
  ['192.168.1.1', 'private address'],
  ['169.254.169.254', 'link-local address'],
  ['100.64.0.1', 'carrier-grade NAT address'],
  ['100.127.255.255', 'carrier-grade NAT address'],
  ['224.0.0.1', 'multicast address'],
  ['239.255.255.250', 'multicast address'],
  ['0.0.0.0', 'unspecified address'],
  ['0.1.2.3', 'unspecified address'],
  ['255.255.255.255', 'broadcast address'],
  ['192.0.2.1', 'reserved address'],
  ['198.51.100.7', 'reserved address'],
  ['203.0.113.9', 'reserved address'],
  ['198.18.0.1', 'reserved address'],
  ['240.0.0.1', 'reserved address'],
  ['192.0.0.8', 'reserved address'],
  ['::1', 'loopback address'],
  ['::', 'unspecified address'],
  ['fe80::1', 'link-local address'],
  ['fe80::1%eth0', 'link-local address'],
  ['fc00::1', 'unique-local address'],
  ['fd12::1', 'unique-local address'],
  ['ff02::1', 'multicast address'],
  ['fec0::1', 'site-local address'],
  ['2001:db8::1', 'reserved address'],
  ['100::1', 'reserved address'],
  ['4000::1', 'reserved address'], // outside 2000::/3 global unicast
  ['2606:4700::1111%eth0', 'scoped address'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback address'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback address'],
  ['::ffff:10.0.0.1', 'IPv4-mapped private address'],
  ['::ffff:169.254.169.254', 'IPv4-mapped link-local address'],
  ['::127.0.0.1', 'IPv4-compatible loopback address'],
  ['::7f00:1', 'IPv4-compatible loopback address'],
  ['::8.8.8.8', 'IPv4-compatible address'], // deprecated form, refused even when public
  ['64:ff9b::7f00:1', 'NAT64 loopback address'],
  ['64:ff9b::a00:1', 'NAT64 private address'],
  ['64:ff9b:1::808:808', 'NAT64 local-use address'],
  ['2002:7f00:1::1', '6to4 loopback address'],
  ['2002:c0a8:0101::1', '6to4 private address'],
  ['2002:a9fe:a9fe::1', '6to4 link-local address'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo address'],
  ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'Teredo address'], // public server, client 8.8.8.8
  ['example.com', 'not an IP address'],
  ['[::1]', 'not an IP address'],
  ['127.1', 'not an IP address'], // inet_aton shorthand: only canonical text is checked
  ['0x7f.0.0.1', 'not an IP address'],
  ['010.0.0.1', 'not an IP address'],
  ['::ffff:0x7f.0.0.1', 'not an IP address'],
  ['', 'not an IP address'],
];

describe('checkDestinationAddress', () => {
  it.each(allowed)('allows %s', (address) => {
    expect(checkDestinationAddress(address)).toEqual({ allowed: true });
  });

  it.each(refused)('refuses %s as %s', (address, reason) => {
    expect(checkDestinationAddress(address)).toEqual({ allowed: false, reason });
  });
});

describe('isIpLiteral', () => {
  it.each([
    ['8.8.8.8', true],
    ['::1', true],
    ['[::1]', true],
    ['[2606:4700::1111]', true],
    ['fe80::1%eth0', true],
    ['::ffff:127.0.0.1', true],
    ['example.com', false],
    ['hooks.example.test', false],
    ['[1.2.3.4]', false],
    ['127.1', false],
    ['', false],
  ] as const)('%s → %s', (host, expected) => {
    expect(isIpLiteral(host)).toBe(expected);
  });
});
