import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { checkDestinationAddress } from './address-policy.ts';
import { allowedCidrProblem, blockHoldsPublicAddress } from './address-ranges.ts';

const strict = { allowPrivateNetwork: false };
const development = { allowPrivateNetwork: true };

describe('allowedCidrProblem', () => {
  it('refuses blocks that lie inside a refused range, naming the entry and the range', () => {
    const refused = [
      '127.0.0.1/32',
      '127.0.0.0/8',
      '10.0.0.0/8',
      '10.1.0.0/16',
      '172.16.0.0/12',
      '192.168.1.0/24',
      '169.254.169.254/32',
      '100.64.0.0/10',
      '0.0.0.0/8',
      '224.0.0.0/4',
      '::1/128',
      '::/128',
      'fc00::/7',
      'fd00::/8',
      'fe80::/10',
      'ff00::/8',
      '::ffff:127.0.0.1/128',
      '::ffff:10.0.0.0/104',
      '64:ff9b::a00:1/128',
      '2002:7f00::/24',
      '2001:db8::/32',
      '203.0.113.0/24',
      '::/96',
      '4000::/2',
    ];
    for (const cidr of refused) {
      const problem = allowedCidrProblem(cidr, strict);
      expect(problem, cidr).toContain(`"${cidr}"`);
    }
    expect(allowedCidrProblem('127.0.0.1/32', strict)).toBe(
      'allowedCidrs entry "127.0.0.1/32" holds only addresses of the worker host itself (loopback), which sandboxes never reach',
    );
    expect(allowedCidrProblem('10.0.0.0/8', strict)).toBe(
      'allowedCidrs entry "10.0.0.0/8" holds no public address (it lies in a private range), which sandboxes never reach',
    );
  });

  it('accepts public blocks and wide blocks that hold public addresses', () => {
    for (const cidr of [
      '8.8.8.0/24',
      '1.1.1.1/32',
      '0.0.0.0/0',
      '::/0',
      '2606:4700::/32',
      '::ffff:8.8.8.8/128',
      '2002:808:808::/48',
      '126.0.0.0/7',
      '64:ff9b::/96',
    ]) {
      expect(allowedCidrProblem(cidr, strict), cidr).toBeNull();
    }
  });

  it('with private networks allowed, refuses only the worker host itself (loopback and unspecified)', () => {
    for (const cidr of ['10.0.0.0/8', '192.168.1.0/24', 'fd00::/8', '169.254.0.0/16']) expect(allowedCidrProblem(cidr, development), cidr).toBeNull();
    for (const cidr of ['127.0.0.1/32', '127.0.0.0/8', '0.0.0.0/8', '::1/128', '::/128', '::ffff:127.0.0.1/128'])
      expect(allowedCidrProblem(cidr, development), cidr).toContain('worker host itself');
    expect(allowedCidrProblem('0.0.0.0/0', development)).toBeNull();
  });
});

describe('blockHoldsPublicAddress agrees with checkDestinationAddress', () => {
  // A seeded generator, so a failure names a block that can be checked again.
  let seed = 0x2028;
  const random = (below: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % below;
  };
  const addresses = (cidr: string, count: number): string[] => {
    const [network, bits] = ipaddr.parseCIDR(cidr);
    const bytes = network.toByteArray();
    return Array.from({ length: count }, () => {
      const copy = bytes.map((byte, index) => {
        const fixed = Math.max(0, Math.min(8, bits - index * 8));
        const mask = (0xff << (8 - fixed)) & 0xff;
        return (byte & mask) | (random(256) & ~mask & 0xff);
      });
      return ipaddr.fromByteArray(copy).toString();
    });
  };

  it('small blocks: public exactly when one of their addresses is', () => {
    // Every /24 edge of the refused IPv4 table, and blocks around the embedded IPv6 forms.
    const blocks = [
      '127.255.255.0/24',
      '128.0.0.0/24',
      '9.255.255.0/24',
      '11.0.0.0/24',
      '100.63.255.0/24',
      '100.128.0.0/24',
      '192.0.1.0/24',
      '192.0.3.0/24',
      '198.17.255.0/24',
      '198.20.0.0/24',
      '223.255.255.0/24',
      '::ffff:7f00:0/120',
      '::ffff:808:800/120',
      '2002:a00::/120',
      '2002:808:800::/120',
    ];
    for (let index = 0; index < 200; index += 1) blocks.push(`${random(256)}.${random(256)}.${random(256)}.0/24`);
    for (const cidr of blocks) {
      const [network, bits] = ipaddr.parseCIDR(cidr);
      const size = network.kind() === 'ipv4' ? 2 ** (32 - bits) : 256;
      const anyPublic =
        ipaddr.parseCIDR(cidr)[0].kind() === 'ipv4'
          ? Array.from({ length: size }, (_, offset) => {
              const bytes = network.toByteArray();
              bytes[3] = (bytes[3]! & ~(size - 1)) + offset;
              return ipaddr.fromByteArray(bytes).toString();
            }).some((address) => checkDestinationAddress(address).allowed)
          : addresses(cidr, 256).some((address) => checkDestinationAddress(address).allowed);
      expect(blockHoldsPublicAddress(cidr), cidr).toBe(anyPublic);
    }
  });

  it('single addresses: the same verdict as the address policy', () => {
    const samples = [
      ...addresses('0.0.0.0/0', 2000),
      ...addresses('2000::/3', 500),
      ...addresses('::ffff:0:0/96', 500),
      ...addresses('2002::/16', 500),
      ...addresses('64:ff9b::/96', 200),
      ...addresses('::/0', 500),
    ];
    for (const address of samples) {
      const cidr = `${address}/${address.includes(':') ? 128 : 32}`;
      expect(blockHoldsPublicAddress(cidr), address).toBe(checkDestinationAddress(address).allowed);
    }
  });
});
