import { and, eq, inArray, isNull } from 'drizzle-orm';
import { apiKeys } from '../../../db/schema/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import { apiKeySubject } from '../../../domain/principals.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import { forgetCachedApiKeysAfterCommit } from '../auth/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { assertOrganizationAdministrator } from '../projects/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';

/**
 * Revokes one key of the organization and, in the same transaction, every key made with it and
 * with those, transitively (issue 28: a leaked key must not leave survivors it planted). Later
 * requests with any of them are 401. Revoking twice is 404. A key being made with this key at the
 * same moment either waits for the revocation and is refused (`createApiKey` locks its creator's
 * row) or commits first and is found by the chain.
 */
export async function revokeApiKey({ ctx, input }: { ctx: ServiceContext; input: { apiKeyId: string } }): Promise<{ id: string; revoked: true }> {
  const actor = requireActor(ctx);
  assertOrganizationAdministrator(actor);
  return withTransaction(ctx, async (tx) => {
    const at = tx.clock.now();
    const revoked = await tx.db
      .update(apiKeys)
      .set({ revokedAt: at })
      .where(and(eq(apiKeys.id, input.apiKeyId), eq(apiKeys.organizationId, actor.organizationId), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id });
    if (revoked.length === 0) throw new NotFoundError('No active API key with that id in this organization');
    const derived = await revokeKeysIssuedBy(tx, { organizationId: actor.organizationId, subject: apiKeySubject(input.apiKeyId), at });
    await recordAudit(tx, { action: 'api_key.revoked', targetType: 'api_key', targetId: input.apiKeyId, details: { derivedKeysRevoked: derived.length } });
    return { id: input.apiKeyId, revoked: true as const };
  });
}

/**
 * Revokes every key issued by `subject` in the organization, and keys derived from those keys
 * (issued by their mirror principals), transitively (spec 3 "API keys" rule 6).
 */
export async function revokeKeysIssuedBy(ctx: ServiceContext, input: { organizationId: string; subject: string; at?: Date }): Promise<string[]> {
  const revokedIds: string[] = [];
  const at = input.at ?? ctx.clock.now();
  forgetCachedApiKeysAfterCommit(ctx);
  let issuers = [input.subject];
  while (issuers.length > 0) {
    const rows = await ctx.db
      .update(apiKeys)
      .set({ revokedAt: at })
      .where(and(eq(apiKeys.organizationId, input.organizationId), inArray(apiKeys.createdBySubject, issuers), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id });
    revokedIds.push(...rows.map((row) => row.id));
    issuers = rows.map((row) => apiKeySubject(row.id));
  }
  return revokedIds;
}
