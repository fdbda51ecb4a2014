import { and, eq } from 'drizzle-orm';
import { mcpCredentialPolicies, mcpCredentialPolicyVersions, mcpCredentials } from '../../../db/schema/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { McpCredentialRow } from '../mcp-credentials/index.ts';
import type { McpCredentialPolicyRow, McpCredentialPolicyVersionRow } from './public.ts';

export type LoadedPolicyVersion = { policy: McpCredentialPolicyRow; version: McpCredentialPolicyVersionRow; credential: McpCredentialRow };

/** A policy version of the actor's organization with its policy and credential, or null. */
export async function findPolicyVersion(
  ctx: ServiceContext,
  policyVersionId: string,
  organizationId = requireActor(ctx).organizationId,
): Promise<LoadedPolicyVersion | null> {
  const [row] = await ctx.db
    .select({ policy: mcpCredentialPolicies, version: mcpCredentialPolicyVersions, credential: mcpCredentials })
    .from(mcpCredentialPolicyVersions)
    .innerJoin(mcpCredentialPolicies, eq(mcpCredentialPolicies.id, mcpCredentialPolicyVersions.policyId))
    .innerJoin(mcpCredentials, eq(mcpCredentials.id, mcpCredentialPolicyVersions.credentialId))
    .where(and(eq(mcpCredentialPolicyVersions.id, policyVersionId), eq(mcpCredentialPolicyVersions.organizationId, organizationId)));
  return row ?? null;
}
