import ipaddr from 'ipaddr.js';
import * as v from 'valibot';
import { ConfigurationKey, DisplayName, ProviderApiKey } from '../model-catalog/provider-input.ts';
import { allowedCidrProblem } from '../outbound/address-ranges.ts';

/** Request bodies of the sandbox provider routes (spec 2 "Sandbox providers"). */

export const MAX_EGRESS_ENTRIES = 100;

/** `example.com` or `*.example.com` (every subdomain, not the apex): lowercase DNS names. */
const DOMAIN = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

const AllowedDomain = v.pipe(
  v.string('allowedDomains entries must be strings'),
  v.trim(),
  v.toLowerCase(),
  v.maxLength(253, 'allowedDomains entries must be at most 253 characters'),
  v.regex(DOMAIN, 'allowedDomains entries must be host names such as "api.example.com" or "*.example.com"'),
);

const AllowedCidr = v.pipe(
  v.string('allowedCidrs entries must be strings'),
  v.trim(),
  v.check((text) => {
    try {
      ipaddr.parseCIDR(text);
      return true;
    } catch {
      return false;
    }
  }, 'allowedCidrs entries must be CIDR blocks such as "198.41.0.0/24" or "2606:4700::/32"'),
  // One spelling per block, so lists compare and display predictably.
  v.transform((text) => {
    const [address, bits] = ipaddr.parseCIDR(text);
    return `${address.toString()}/${bits}`;
  }),
);

export const RestrictedEgressInput = v.strictObject({
  allowedDomains: v.pipe(
    v.array(AllowedDomain, 'allowedDomains must be an array'),
    v.maxLength(MAX_EGRESS_ENTRIES, `allowedDomains may hold at most ${MAX_EGRESS_ENTRIES} entries`),
    v.transform((list) => [...new Set(list)]),
  ),
  allowedCidrs: v.pipe(
    v.array(AllowedCidr, 'allowedCidrs must be an array'),
    v.maxLength(MAX_EGRESS_ENTRIES, `allowedCidrs may hold at most ${MAX_EGRESS_ENTRIES} entries`),
    v.transform((list) => [...new Set(list)]),
  ),
});

/**
 * The server's address policy over an allowlist (issue 28): the first `allowedCidrs` entry that
 * holds no address a sandbox may reach, with its path; null when every entry may be saved.
 * Checked where a connection is created, configured or restored; the egress proxy applies the
 * same policy to every address it dials, so a wide block such as `0.0.0.0/0` opens only the
 * public internet.
 */
export function restrictedEgressProblem(
  egress: { allowedCidrs: readonly string[] },
  options: { allowPrivateNetwork: boolean },
): { path: string; message: string } | null {
  for (const [index, cidr] of egress.allowedCidrs.entries()) {
    const message = allowedCidrProblem(cidr, options);
    if (message) return { path: `restrictedEgress.allowedCidrs.${index}`, message };
  }
  return null;
}

const Target = v.nullable(
  v.pipe(
    v.string('target must be a string or null'),
    v.trim(),
    v.minLength(1, 'target must not be empty (use null)'),
    v.maxLength(200, 'target must be at most 200 characters'),
  ),
);

export const CreateSandboxProviderInput = v.strictObject({
  key: ConfigurationKey,
  displayName: DisplayName,
  providerType: v.literal('sandbox_vendor', 'providerType must be "sandbox_vendor"'),
  apiKey: ProviderApiKey,
  target: v.optional(Target, null),
  restrictedEgress: v.optional(RestrictedEgressInput, { allowedDomains: [], allowedCidrs: [] }),
});
export type CreateSandboxProviderInput = v.InferOutput<typeof CreateSandboxProviderInput>;

export const RotateSandboxProviderCredentialInput = v.strictObject({ apiKey: ProviderApiKey });

export const UpdateSandboxProviderConfigurationInput = v.strictObject({
  target: Target,
  restrictedEgress: RestrictedEgressInput,
});
export type UpdateSandboxProviderConfigurationInput = v.InferOutput<typeof UpdateSandboxProviderConfigurationInput>;
