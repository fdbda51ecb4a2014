import ipaddr from 'ipaddr.js';
import { checkDestinationAddress } from './address-policy.ts';

/**
 * The address policy (`checkDestinationAddress`) applied to whole CIDR blocks, for sandbox
 * `restrictedEgress.allowedCidrs`: a block is refused when it holds no address the policy would
 * let a connection reach. A wider block (`0.0.0.0/0`) is accepted, and means at most "the public
 * part of it": the egress proxy still checks every address it dials.
 *
 * Exact, by intervals: the addresses the policy allows are listed as [first, last] pairs, and a
 * block is refused when none of them meets it. The tables mirror ipaddr.js's special ranges,
 * which `checkDestinationAddress` reads through `range()`; `address-ranges.test.ts` holds the
 * two to the same answers.
 */

type Interval = readonly [bigint, bigint];

// Every IPv4 range ipaddr.js names other than 'unicast' (checkIPv4 refuses them all).
const IPV4_REFUSED = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.31.196.0/24',
  '192.52.193.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '192.175.48.0/24',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
];

// Inside 2000::/3 (the only allocated global unicast space), the ranges checkIPv6 refuses;
// 2002::/16 (6to4) is judged by the IPv4 address it carries and added back below.
const IPV6_REFUSED_IN_GLOBAL = ['2001::/23', '2001:db8::/32', '2002::/16', '2620:4f:8000::/48', '3fff::/20'];

const IPV4_BITS = 32n;
const IPV6_BITS = 128n;

function block(cidr: string): Interval {
  const [address, bits] = ipaddr.parseCIDR(cidr);
  const width = address.kind() === 'ipv4' ? IPV4_BITS : IPV6_BITS;
  const first = toBigInt(address.toByteArray()) & ~((1n << (width - BigInt(bits))) - 1n);
  return [first, first + (1n << (width - BigInt(bits))) - 1n];
}

function toBigInt(bytes: number[]): bigint {
  return bytes.reduce((value, byte) => (value << 8n) | BigInt(byte), 0n);
}

/** `outer` minus the (sorted, merged on the fly) `holes`. */
function subtract(outer: Interval, holes: Interval[]): Interval[] {
  const result: Interval[] = [];
  let next = outer[0];
  for (const [first, last] of [...holes].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    if (last < next || first > outer[1]) continue;
    if (first > next) result.push([next, first - 1n]);
    if (last + 1n > next) next = last + 1n;
  }
  if (next <= outer[1]) result.push([next, outer[1]]);
  return result;
}

const PUBLIC_IPV4 = subtract([0n, (1n << IPV4_BITS) - 1n], IPV4_REFUSED.map(block));

/** IPv6 forms that carry an IPv4 address at a bit offset: public exactly when that address is. */
function embedded(prefix: string, offsetBits: bigint): Interval[] {
  const [start] = block(prefix);
  const tail = IPV6_BITS - offsetBits - IPV4_BITS;
  return PUBLIC_IPV4.map(([first, last]) => [start | (first << tail), start | (last << tail) | ((1n << tail) - 1n)] as const);
}

const PUBLIC_IPV6: Interval[] = [
  ...embedded('::ffff:0:0/96', 96n), // IPv4-mapped
  ...embedded('64:ff9b::/96', 96n), // NAT64 well-known prefix
  ...subtract(block('2000::/3'), IPV6_REFUSED_IN_GLOBAL.map(block)),
  ...embedded('2002::/16', 16n), // 6to4
];

/** True when some address of the block is one the address policy allows (a public address). */
export function blockHoldsPublicAddress(cidr: string): boolean {
  const [first, last] = block(cidr);
  const publicRanges = ipaddr.parseCIDR(cidr)[0].kind() === 'ipv4' ? PUBLIC_IPV4 : PUBLIC_IPV6;
  return publicRanges.some(([from, to]) => from <= last && to >= first);
}

// Loopback, unspecified and IPv4-compatible (`::a.b.c.d`, `::1` among them), also IPv4-mapped:
// the worker host itself, refused even where private networks are allowed.
const HOST_ITSELF = ['0.0.0.0/8', '127.0.0.0/8', '::/96', '::ffff:0.0.0.0/104', '::ffff:127.0.0.0/104'].map(
  (cidr) => [ipaddr.parseCIDR(cidr)[0].kind(), block(cidr)] as const,
);

function insideHostItself(cidr: string): boolean {
  const kind = ipaddr.parseCIDR(cidr)[0].kind();
  const [first, last] = block(cidr);
  return HOST_ITSELF.some(([rangeKind, [from, to]]) => rangeKind === kind && from <= first && last <= to);
}

/** Whether an address is always the worker host itself (not counting its interface addresses). */
export function isHostItselfAddress(address: string): boolean {
  return insideHostItself(`${address}/${ipaddr.parse(address).kind() === 'ipv4' ? 32 : 128}`);
}

/**
 * Why an `allowedCidrs` entry may not be saved, or null when it may. Without private networks a
 * block must hold a public address; with them (development servers) only blocks inside loopback
 * or the unspecified range are refused, since those are always the worker host itself.
 */
export function allowedCidrProblem(cidr: string, options: { allowPrivateNetwork: boolean }): string | null {
  const network = ipaddr.parseCIDR(cidr)[0].toString();
  if (insideHostItself(cidr)) {
    return `allowedCidrs entry "${cidr}" holds only addresses of the worker host itself (${reasonOf(network)}), which sandboxes never reach`;
  }
  if (options.allowPrivateNetwork || blockHoldsPublicAddress(cidr)) return null;
  return `allowedCidrs entry "${cidr}" holds no public address (it lies in a ${reasonOf(network)} range), which sandboxes never reach`;
}

function reasonOf(address: string): string {
  const verdict = checkDestinationAddress(address);
  return verdict.allowed ? 'non-public' : verdict.reason.replace(/ address$/, '');
}
