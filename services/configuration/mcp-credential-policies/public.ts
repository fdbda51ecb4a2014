import type * as v from 'valibot';
import type { PublicMcpCredentialPolicyVersionShape } from '../../../domain/public-shapes/mcp.ts';
import type { mcpCredentialPolicies, mcpCredentialPolicyVersions } from '../../../db/schema/index.ts';
import type { McpCredentialRow } from '../mcp-credentials/index.ts';

export type McpCredentialPolicyRow = typeof mcpCredentialPolicies.$inferSelect;
export type McpCredentialPolicyVersionRow = typeof mcpCredentialPolicyVersions.$inferSelect;

/** One immutable policy version. `active` while its credential is not revoked. */
export type PublicMcpCredentialPolicyVersion = v.InferOutput<typeof PublicMcpCredentialPolicyVersionShape>;

export const isPolicyActive = (credential: Pick<McpCredentialRow, 'revokedAt'>) => credential.revokedAt === null;

export const toMcpCredentialPolicyVersionResponse = (
  policy: McpCredentialPolicyRow,
  version: McpCredentialPolicyVersionRow,
  credential: Pick<McpCredentialRow, 'revokedAt'>,
): PublicMcpCredentialPolicyVersion => ({
  id: version.id,
  policyId: policy.id,
  key: policy.key,
  version: version.version,
  latestVersion: policy.latestVersion,
  displayName: version.displayName,
  credentialId: version.credentialId,
  exactOrigin: version.exactOrigin,
  pathPrefix: version.pathPrefix,
  timeoutMs: version.timeoutMs,
  maximumResponseBytes: version.maximumResponseBytes,
  active: isPolicyActive(credential),
  createdAt: version.createdAt.toISOString(),
});
