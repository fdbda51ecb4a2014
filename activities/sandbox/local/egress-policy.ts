import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';
import * as v from 'valibot';
import { ValidationError } from '../../../domain/errors.ts';
import { RestrictedEgressInput } from '../../../domain/sandbox/provider-input.ts';

/**
 * `restricted` egress as pure rules: a host name passes when it equals an allowed domain or
 * ends in a `*.` wildcard's suffix (subdomains only, not the apex); an address passes when it
 * lies in an allowed CIDR block. The format is the provider connection's, re-checked here
 * because the driver must never widen a bad entry.
 */
export type EgressPolicy = {
  domains: readonly string[];
  cidrs: ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]>;
};

export function compileEgressPolicy(input: { allowedDomains: string[]; allowedCidrs: string[] }): EgressPolicy {
  // The connection's own format rules (domain/sandbox/provider-input.ts), applied again here.
  const parsed = v.safeParse(RestrictedEgressInput, { allowedDomains: input.allowedDomains, allowedCidrs: input.allowedCidrs });
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const path = ['network', ...(issue.path ?? []).map((item) => String(item.key))].join('.');
    throw new ValidationError(issue.message, { path });
  }
  const { allowedDomains, allowedCidrs } = parsed.output;
  return { domains: allowedDomains, cidrs: allowedCidrs.map((entry) => ipaddr.parseCIDR(entry)) };
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
