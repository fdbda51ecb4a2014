import { and, eq, isNull } from 'drizzle-orm';
import type { Executor } from '../../../db/client.ts';
import { apiKeys, principals } from '../../../db/schema/index.ts';
import { apiKeyIdOfSubject } from '../../../domain/principals.ts';
import type { Actor } from '../../kernel/service-context.ts';
import { apiKeyActor } from './authenticate-api-key.ts';
import { loadMemberActor } from './load-actor.ts';

/**
 * The actor a principal would be if it sent a request now, for work that acts later on its
 * behalf (a schedule's firing): an API key's mirror principal with its key's current scopes,
 * while the key is unrevoked; a person or service principal with its scopes and roles, while its
 * project membership lasts. Null when the principal is gone or may no longer act at all.
 */
export async function principalActorNow({ db, input }: { db: Executor; input: { principalId: string } }): Promise<Actor | null> {
  const [principal] = await db.select().from(principals).where(eq(principals.id, input.principalId));
  if (!principal) return null;
  if (principal.kind !== 'api_key')
    return loadMemberActor({ db, input: { organizationId: principal.organizationId, projectId: principal.projectId, subject: principal.subject } });
  const apiKeyId = apiKeyIdOfSubject(principal.subject);
  if (!apiKeyId) return null;
  const [key] = await db
    .select({ id: apiKeys.id, organizationId: apiKeys.organizationId, scopes: apiKeys.scopes, name: apiKeys.name })
    .from(apiKeys)
    .where(and(eq(apiKeys.id, apiKeyId), eq(apiKeys.organizationId, principal.organizationId), isNull(apiKeys.revokedAt)));
  return key ? apiKeyActor({ principalId: principal.id, projectId: principal.projectId, key }) : null;
}
