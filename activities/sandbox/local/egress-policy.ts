import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';
import { ValidationError } from '../../../domain/errors.ts';

/**
 * `restricted` egress as pure rules: a host name passes when it equals an allowed domain or
 * ends in a `*.` wildcard's suffix (subdomains only, not the apex); an address passes when it
 * lies in an allowed CIDR block. The format is the provider connection's (domain/sandbox/
 * provider-input.ts), re-checked here because the driver must never widen a bad entry.
 */
export type EgressPolicy = {
  domains: readonly string[];
  cidrs: ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]>;
};

const DOMAIN = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

export function compileEgressPolicy(input: { allowedDomains: string[]; allowedCidrs: string[] }): EgressPolicy {
  const { allowedDomains, allowedCidrs } = input;
  if (!Array.isArray(allowedDomains)) throw new ValidationError('allowedDomains must be an array', { path: 'network.allowedDomains' });
  if (!Array.isArray(allowedCidrs)) throw new ValidationError('allowedCidrs must be an array', { path: 'network.allowedCidrs' });
  allowedDomains.forEach((entry, index) => {
    if (typeof entry !== 'string' || entry.length > 253 || !DOMAIN.test(entry)) {
      throw new ValidationError('allowedDomains entries must be lowercase host names such as "api.example.com" or "*.example.com"', { path: `network.allowedDomains.${index}` });
    }
  });
  const cidrs = allowedCidrs.map((entry, index) => {
    try {
      return ipaddr.parseCIDR(entry);
    } catch {
      throw new ValidationError('allowedCidrs entries must be CIDR blocks such as "203.0.113.0/24" or "2001:db8::/32"', { path: `network.allowedCidrs.${index}` });
    }
  });
  return { domains: [...allowedDomains], cidrs };
}

/**
 * The host part of a proxy target, lowercased, without brackets or a trailing dot; null when it
 * is neither a canonical IP literal nor a plain DNS name (no zone ids, no odd characters).
 */
export function normalizeTargetHost(host: string): string | null {
  let text = host.toLowerCase();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  if (text.endsWith('.')) text = text.slice(0, -1);
  if (text.includes('%')) return null;
  if (isIP(text)) return text;
  if (text.length > 253 || !/^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/.test(text)) return null;
  return text;
}

export function domainAllowed(policy: EgressPolicy, host: string): boolean {
  return policy.domains.some((entry) => (entry.startsWith('*.') ? host.endsWith(entry.slice(1)) : host === entry));
}

/** IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry. */
export function addressAllowed(policy: EgressPolicy, address: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address);
  } catch {
    return false;
  }
  return policy.cidrs.some(([range, bits]) => parsed.kind() === range.kind() && parsed.match(range, bits));
}
