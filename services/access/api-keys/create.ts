import { randomBytes } from 'node:crypto';
import * as v from 'valibot';
import { apiKeys } from '../../../db/schema/index.ts';
import { CreateApiKeyInput } from '../../../domain/api-keys.ts';
import type { CreatedApiKeyShape } from '../../../domain/public-shapes/access.ts';
import { eq } from 'drizzle-orm';
import { ForbiddenError, UnauthenticatedError } from '../../../domain/errors.ts';
import { ungrantableScopes } from '../../../domain/scopes.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import { API_KEY_PREFIX } from '../auth/index.ts';
import type { Actor, ServiceContext } from '../../kernel/service-context.ts';
import { loadMemberActor } from '../auth/index.ts';
import { lockOrganizationRole } from '../auth/index.ts';
import type { CredentialKeyring } from '../../kernel/credentials/index.ts';
import { assertOrganizationAdministrator } from '../projects/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { toApiKeyResponse } from './public.ts';

export type CreatedApiKey = v.InferOutput<typeof CreatedApiKeyShape>;

/**
 * Issues an organization API key (spec 3 "API keys"): the creator must administer the
 * organization and can grant only scopes it holds. The secret is returned once; only its keyed
 * hash is stored.
 */
export async function createApiKey({
  ctx,
  keyring,
  input,
}: {
  ctx: ServiceContext;
  keyring: CredentialKeyring;
  input: CreateApiKeyInput;
}): Promise<CreatedApiKey> {
  const { name, scopes } = v.parse(CreateApiKeyInput, input);
  const secret = API_KEY_PREFIX + randomBytes(32).toString('base64url');
  return withTransaction(ctx, async (tx) => {
    // Re-read the creator's access under the lock role changes take, so a key is either issued
    // before a downgrade (which then revokes it) or refused after it (spec 3 "API keys" rule 6).
    const actor = await lockedCreator(tx, requireActor(ctx));
    assertOrganizationAdministrator(actor);
    const ungrantable = ungrantableScopes(actor.scopes, scopes);
    if (ungrantable.length > 0) {
      throw new ForbiddenError(`The principal cannot grant scopes it does not hold: ${ungrantable.join(', ')}`, { ungrantableScopes: ungrantable });
    }
    const [row] = await tx.db
      .insert(apiKeys)
      .values({
        organizationId: actor.organizationId,
        name,
        scopes,
        secretHash: keyring.keyedHash(secret),
        secretHint: secret.slice(-4),
        createdByPrincipalId: actor.principalId,
        createdBySubject: actor.subject,
        createdAt: tx.clock.now(),
      })
      .returning();
    await recordAudit(tx, { action: 'api_key.created', targetType: 'api_key', targetId: row!.id, details: { name, scopes } });
    return { ...toApiKeyResponse(row!), shown: true as const, secret };
  });
}

/**
 * The creator as it stands now, with its row locked: a person's organization membership (and
 * then its principal's scopes), or the API key a derived key is made with.
 */
async function lockedCreator(tx: ServiceContext, actor: Actor): Promise<Actor> {
  if (actor.kind === 'api_key') {
    const [key] = await tx.db
      .select({ scopes: apiKeys.scopes, revokedAt: apiKeys.revokedAt })
      .from(apiKeys)
      .where(eq(apiKeys.id, actor.apiKeyId!))
      .for('update');
    if (!key || key.revokedAt) throw new UnauthenticatedError('The API key is not valid');
    return { ...actor, scopes: key.scopes };
  }
  const organizationRole = await lockOrganizationRole(tx, actor.organizationId, actor.subject);
  const current = await loadMemberActor({ db: tx.db, input: { organizationId: actor.organizationId, projectId: actor.projectId, subject: actor.subject } });
  if (!current || !organizationRole) throw new ForbiddenError('An organization owner or admin role is required');
  return { ...current, organizationRole };
}
