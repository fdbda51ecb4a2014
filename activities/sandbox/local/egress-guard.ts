import ipaddr from 'ipaddr.js';
import { networkInterfaces } from 'node:os';
import { checkDestinationAddress } from '../../../domain/outbound/address-policy.ts';
import { isHostItselfAddress } from '../../../domain/outbound/address-ranges.ts';

/**
 * The server's address policy, applied by the egress proxy to every address it is about to dial,
 * whatever the connection's allowlist says: the allowlist can only narrow what a sandbox reaches,
 * never open what webhooks and MCP may not reach either.
 *
 * - Non-public addresses (loopback, private, link-local and metadata, unique-local, multicast,
 *   unspecified, reserved) are refused, unless the server allows private networks (development).
 * - Even then, never the worker host itself: loopback, unspecified, and every address of the
 *   host's interfaces (read at each check, so a new address counts at once).
 * - Even then, never the service's own ports (API, Temporal, database) on a non-public address.
 */
export type EgressGuard = {
  /** SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK (development only). */
  allowPrivateNetwork: boolean;
  /** Ports of the service itself, refused on every non-public address. */
  protectedPorts?: readonly number[];
};

/** The secure default: public addresses only. */
export const PUBLIC_ONLY: EgressGuard = { allowPrivateNetwork: false };

/** Why `address:port` may not be dialled, as a fixed phrase; null when it may. */
export function egressRefusal(guard: EgressGuard, address: string, port: number): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address);
  } catch {
    return 'is not an IP address';
  }
  if (isHostItself(parsed)) return "is the worker host's own address";
  const verdict = checkDestinationAddress(parsed.toString());
  if (verdict.allowed) return null;
  if (!guard.allowPrivateNetwork) return `is not public (${verdict.reason})`;
  if (guard.protectedPorts?.includes(port)) return `port ${port} is one of the service's own`;
  return null;
}

function isHostItself(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  const text = address.toString();
  if (isHostItselfAddress(text)) return true;
  for (const own of interfaceAddresses()) {
    try {
      if (ipaddr.process(own.split('%')[0]!).toString() === text) return true;
    } catch {
      // not an address: skip
    }
  }
  return false;
}

function* interfaceAddresses(): Iterable<string> {
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) yield entry.address;
  }
}
