import { and, eq, isNull, sql } from 'drizzle-orm';
import { prepared } from '../../../db/prepared.ts';
import { apiKeys, principals, projects } from '../../../db/schema/index.ts';
import { ForbiddenError, UnauthenticatedError } from '../../../domain/errors.ts';
import { API_KEY_SUBJECT_PREFIX, apiKeySubject } from '../../../domain/principals.ts';
import type { CredentialKeyring } from '../../kernel/credentials/index.ts';
import type { Actor, ServiceContext } from '../../kernel/service-context.ts';
import type { ApiKeyCache } from './api-key-cache.ts';
import { earliestProjectId } from './load-actor.ts';

export const API_KEY_PREFIX = 'svc_';
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Resolves `Authorization: Bearer svc_...` to the key's project-local mirror principal in the
 * project the request addresses (the path project, else the organization's earliest project),
 * creating the mirror on first use. Unknown or revoked keys are 401; a project outside the
 * key's organization is 403. With `apiKeyCache`, a key authenticated for the same project in the
 * last second is not read again (api-key-cache.ts).
 */
export async function authenticateApiKey({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: { keyring: CredentialKeyring; apiKeyCache?: ApiKeyCache };
  input: { secret: string; projectId: string | null };
}): Promise<Actor> {
  if (!input.secret.startsWith(API_KEY_PREFIX)) throw new UnauthenticatedError('The API key is not valid');
  const secretHash = deps.keyring.keyedHash(input.secret);
  const cached = deps.apiKeyCache?.get(secretHash, input.projectId);
  if (cached) return cached;
  const actor = await lookUpApiKey(ctx, secretHash, input.projectId);
  deps.apiKeyCache?.set(secretHash, input.projectId, actor);
  return actor;
}

async function lookUpApiKey(ctx: ServiceContext, secretHash: string, requestedProjectId: string | null): Promise<Actor> {
  let key: typeof apiKeys.$inferSelect;
  let projectId = requestedProjectId;
  let principalId: string | null = null;
  if (projectId) {
    // The common case, a project in the path: the key, that project's organization and the key's
    // mirror principal there in one prepared statement.
    const [row] = await findKeyInProject(ctx).execute({ secretHash, projectId });
    if (!row) throw new UnauthenticatedError('The API key is not valid');
    key = row.key;
    if (row.projectOrganizationId !== key.organizationId) throw new ForbiddenError('The project is outside the API key organization');
    principalId = row.mirrorId;
  } else {
    const findKey = prepared(ctx.db, 'find_api_key_by_hash', (db) =>
      db
        .select()
        .from(apiKeys)
        .where(and(eq(apiKeys.secretHash, sql.placeholder('secretHash')), isNull(apiKeys.revokedAt)))
        .prepare('find_api_key_by_hash'),
    );
    const [found] = await findKey.execute({ secretHash });
    if (!found) throw new UnauthenticatedError('The API key is not valid');
    key = found;
    projectId = await earliestProjectId(ctx.db, key.organizationId);
    if (!projectId) throw new ForbiddenError('The organization has no project');
  }

  const subject = apiKeySubject(key.id);
  principalId ??= await mirrorPrincipalId(ctx, { organizationId: key.organizationId, projectId, subject, scopes: key.scopes, name: key.name });

  // A cached key skips this too: an entry lives 1 s, far below the minute `lastUsedAt` resolves to.
  const now = ctx.clock.now();
  if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await ctx.db.update(apiKeys).set({ lastUsedAt: now }).where(eq(apiKeys.id, key.id));
  }

  return apiKeyActor({ principalId, projectId, key });
}

/** The actor of an API key's mirror principal in a project: the key's own scopes, no roles. */
export function apiKeyActor(input: {
  principalId: string;
  projectId: string;
  key: Pick<typeof apiKeys.$inferSelect, 'id' | 'organizationId' | 'scopes' | 'name'>;
}): Actor {
  const { key } = input;
  return {
    principalId: input.principalId,
    organizationId: key.organizationId,
    projectId: input.projectId,
    kind: 'api_key',
    subject: apiKeySubject(key.id),
    scopes: key.scopes,
    displayName: key.name,
    organizationRole: null,
    projectRole: null,
    apiKeyId: key.id,
  };
}

function findKeyInProject(ctx: ServiceContext) {
  return prepared(ctx.db, 'find_api_key_in_project', (db) =>
    db
      .select({ key: apiKeys, projectOrganizationId: projects.organizationId, mirrorId: principals.id })
      .from(apiKeys)
      .leftJoin(projects, eq(projects.id, sql.placeholder('projectId')))
      .leftJoin(
        principals,
        and(
          eq(principals.projectId, projects.id),
          eq(principals.kind, 'api_key'),
          eq(principals.subject, sql`${API_KEY_SUBJECT_PREFIX}::text || ${apiKeys.id}::text`),
        ),
      )
      .where(and(eq(apiKeys.secretHash, sql.placeholder('secretHash')), isNull(apiKeys.revokedAt)))
      .prepare('find_api_key_in_project'),
  );
}

async function mirrorPrincipalId(
  ctx: ServiceContext,
  input: { organizationId: string; projectId: string; subject: string; scopes: string[]; name: string },
): Promise<string> {
  const findMirror = prepared(ctx.db, 'find_api_key_mirror', (db) =>
    db
      .select({ id: principals.id })
      .from(principals)
      .where(and(eq(principals.projectId, sql.placeholder('projectId')), eq(principals.kind, 'api_key'), eq(principals.subject, sql.placeholder('subject'))))
      .prepare('find_api_key_mirror'),
  );
  const [existing] = await findMirror.execute({ projectId: input.projectId, subject: input.subject });
  if (existing) return existing.id;
  await ctx.db
    .insert(principals)
    .values({
      organizationId: input.organizationId,
      projectId: input.projectId,
      kind: 'api_key',
      subject: input.subject,
      scopes: input.scopes,
      displayName: input.name,
    })
    .onConflictDoNothing();
  const [created] = await findMirror.execute({ projectId: input.projectId, subject: input.subject });
  return created!.id;
}
