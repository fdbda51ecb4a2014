import { randomBytes } from 'node:crypto';
import * as v from 'valibot';
import { apiKeys } from '../../db/schema/index.ts';
import { CreateApiKeyInput } from '../../domain/api-keys.ts';
import { ForbiddenError } from '../../domain/errors.ts';
import { ungrantableScopes } from '../../domain/scopes.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { API_KEY_PREFIX } from '../auth/authenticate-api-key.ts';
import type { ServiceContext } from '../service-context.ts';
import type { CredentialKeyring } from '../credentials/keyring.ts';
import { assertOrganizationAdministrator } from '../projects/authorize.ts';
import { requireActor } from '../require-actor.ts';
import { withTransaction } from '../transaction.ts';
import { toApiKeyResponse, type PublicApiKey } from './public.ts';

export type CreatedApiKey = PublicApiKey & { shown: true; secret: string };

/**
 * Issues an organization API key (spec 3 "API keys"): the creator must administer the
 * organization and can grant only scopes it holds. The secret is returned once; only its keyed
 * hash is stored.
 */
export async function createApiKey({ ctx, keyring, input }: { ctx: ServiceContext; keyring: CredentialKeyring; input: CreateApiKeyInput }): Promise<CreatedApiKey> {
  const actor = requireActor(ctx);
  assertOrganizationAdministrator(actor);
  const { name, scopes } = v.parse(CreateApiKeyInput, input);
  const ungrantable = ungrantableScopes(actor.scopes, scopes);
  if (ungrantable.length > 0) {
    throw new ForbiddenError(`The principal cannot grant scopes it does not hold: ${ungrantable.join(', ')}`, { ungrantableScopes: ungrantable });
  }
  const secret = API_KEY_PREFIX + randomBytes(32).toString('base64url');
  return withTransaction(ctx, async (tx) => {
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
