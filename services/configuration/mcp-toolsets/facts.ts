import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../../db/client.ts';
import {
  mcpCredentialPolicies,
  mcpCredentialPolicyVersions,
  mcpCredentials,
  mcpServers,
  mcpServerVersions,
  mcpToolsets,
  mcpToolsetVersions,
} from '../../../db/schema/index.ts';
import type { McpFacts, McpPolicyVersionFact, McpToolsetVersionFact } from '../../../domain/agent-config/index.ts';

/** What agent publication checks of `mcpBindings`: the named toolset and policy versions of the organization. */
export async function loadMcpFacts(
  db: Executor,
  input: { organizationId: string; toolsetVersionIds: readonly string[]; policyVersionIds: readonly string[] },
): Promise<McpFacts> {
  const toolsetVersions = new Map<string, McpToolsetVersionFact>();
  const policyVersions = new Map<string, McpPolicyVersionFact>();
  if (input.toolsetVersionIds.length > 0) {
    const rows = await db
      .select({ version: mcpToolsetVersions, toolsetKey: mcpToolsets.key, endpointUrl: mcpServers.endpointUrl, serverKey: mcpServers.key })
      .from(mcpToolsetVersions)
      .innerJoin(mcpToolsets, eq(mcpToolsets.id, mcpToolsetVersions.toolsetId))
      .innerJoin(mcpServerVersions, eq(mcpServerVersions.id, mcpToolsetVersions.serverVersionId))
      .innerJoin(mcpServers, eq(mcpServers.id, mcpServerVersions.serverId))
      .where(and(eq(mcpToolsetVersions.organizationId, input.organizationId), inArray(mcpToolsetVersions.id, [...input.toolsetVersionIds])));
    for (const row of rows) {
      toolsetVersions.set(row.version.id, {
        toolsetVersionId: row.version.id,
        projectId: row.version.projectId,
        toolsetKey: row.toolsetKey,
        serverEndpointUrl: row.endpointUrl,
        serverKey: row.serverKey,
        remoteToolNames: row.version.tools.map((tool) => tool.remoteToolName),
      });
    }
  }
  if (input.policyVersionIds.length > 0) {
    const rows = await db
      .select({ version: mcpCredentialPolicyVersions, policyKey: mcpCredentialPolicies.key, revokedAt: mcpCredentials.revokedAt })
      .from(mcpCredentialPolicyVersions)
      .innerJoin(mcpCredentialPolicies, eq(mcpCredentialPolicies.id, mcpCredentialPolicyVersions.policyId))
      .innerJoin(mcpCredentials, eq(mcpCredentials.id, mcpCredentialPolicyVersions.credentialId))
      .where(and(eq(mcpCredentialPolicyVersions.organizationId, input.organizationId), inArray(mcpCredentialPolicyVersions.id, [...input.policyVersionIds])));
    for (const row of rows) {
      policyVersions.set(row.version.id, {
        policyVersionId: row.version.id,
        policyKey: row.policyKey,
        active: row.revokedAt === null,
        exactOrigin: row.version.exactOrigin,
        pathPrefix: row.version.pathPrefix,
      });
    }
  }
  return { toolsetVersions, policyVersions };
}
