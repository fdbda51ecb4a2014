import { and, eq } from 'drizzle-orm';
import { mcpCredentialPolicies, mcpCredentialPolicyVersions, mcpCredentials } from '../../../db/schema/index.ts';
import { toPage, type Page } from '../../../domain/pagination.ts';
import { keysetPage } from '../../kernel/keyset.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { toMcpCredentialPolicyVersionResponse, type PublicMcpCredentialPolicyVersion } from './public.ts';

/** Every policy version of the organization, oldest first (each policy's versions in order). */
export async function listMcpCredentialPolicyVersions({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { limit: number; cursor?: string | undefined };
}): Promise<Page<PublicMcpCredentialPolicyVersion>> {
  const actor = requireActor(ctx);
  const page = keysetPage({ createdAt: mcpCredentialPolicyVersions.createdAt, id: mcpCredentialPolicyVersions.id }, input.cursor, 'asc');
  const rows = await ctx.db
    .select({ policy: mcpCredentialPolicies, version: mcpCredentialPolicyVersions, credential: { revokedAt: mcpCredentials.revokedAt } })
    .from(mcpCredentialPolicyVersions)
    .innerJoin(mcpCredentialPolicies, eq(mcpCredentialPolicies.id, mcpCredentialPolicyVersions.policyId))
    .innerJoin(mcpCredentials, eq(mcpCredentials.id, mcpCredentialPolicyVersions.credentialId))
    .where(and(eq(mcpCredentialPolicyVersions.organizationId, actor.organizationId), page.after))
    .orderBy(...page.orderBy)
    .limit(input.limit + 1);
  const keyed = rows.map((row) => ({ ...row, createdAt: row.version.createdAt, id: row.version.id }));
  return toPage(keyed, input.limit, (row) => toMcpCredentialPolicyVersionResponse(row.policy, row.version, row.credential));
}
