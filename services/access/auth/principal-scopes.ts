import { and, eq, isNull } from 'drizzle-orm';
import type { Executor } from '../../../db/client.ts';
import { apiKeys, principals, projectMemberships } from '../../../db/schema/index.ts';
import { apiKeyIdOfSubject } from '../../../domain/principals.ts';
import { hasScope, type Scope } from '../../../domain/scopes.ts';

/**
 * Whether a principal holds `scope` right now, as a request of it would be authorized: an API
 * key's mirror principal needs its key unrevoked and the key's current scopes; a person or
 * service principal needs its project membership and its scopes. A principal that is gone holds
 * nothing. Used by work that acts later on a principal's behalf (an MCP call of a run).
 */
export async function principalHoldsScope(db: Executor, principalId: string, scope: Scope): Promise<boolean> {
  const [principal] = await db.select().from(principals).where(eq(principals.id, principalId));
  if (!principal) return false;
  if (principal.kind === 'api_key') {
    const apiKeyId = apiKeyIdOfSubject(principal.subject);
    if (!apiKeyId) return false;
    const [key] = await db
      .select({ scopes: apiKeys.scopes })
      .from(apiKeys)
      .where(and(eq(apiKeys.id, apiKeyId), eq(apiKeys.organizationId, principal.organizationId), isNull(apiKeys.revokedAt)));
    return key !== undefined && hasScope(key.scopes, scope);
  }
  const [membership] = await db
    .select({ principalId: projectMemberships.principalId })
    .from(projectMemberships)
    .where(and(eq(projectMemberships.principalId, principal.id), eq(projectMemberships.projectId, principal.projectId)));
  return membership !== undefined && hasScope(principal.scopes, scope);
}
