import { and, eq } from 'drizzle-orm';
import * as v from 'valibot';
import { agents, agentVersions } from '../../../db/schema/index.ts';
import { PublishVersionInput } from '../../../domain/agents.ts';
import { ConflictError } from '../../../domain/errors.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { findLiveAgent } from './lookup.ts';
import { prepareAgentVersion, type PublicationDeps } from './prepare-version.ts';
import { toAgentVersionResponse, type PublicAgentVersion } from './public.ts';

/**
 * Publishes the complete next config as a new immutable version. A config whose content hash
 * the agent already has (any earlier version) conflicts. The agent row is locked so concurrent
 * publications get consecutive version numbers.
 */
export async function publishAgentVersion({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: PublicationDeps;
  input: { agentId: string; config: unknown };
}): Promise<PublicAgentVersion> {
  const actor = requireActor(ctx);
  v.parse(PublishVersionInput, { config: input.config });
  await findLiveAgent(ctx, input.agentId);
  const prepared = await prepareAgentVersion(ctx, deps, { config: input.config, root: 'body.config', agentId: input.agentId });
  return withTransaction(ctx, async (tx) => {
    const { agent } = await findLiveAgent(tx, input.agentId, { forUpdate: true });
    const [same] = await tx.db
      .select({ version: agentVersions.version })
      .from(agentVersions)
      .where(and(eq(agentVersions.agentId, agent.id), eq(agentVersions.contentHash, prepared.contentHash)));
    if (same)
      throw new ConflictError(`This configuration is already published as version ${same.version}`, {
        version: same.version,
        contentHash: prepared.contentHash,
      });
    const now = tx.clock.now();
    const number = agent.latestVersion + 1;
    const [version] = await tx.db
      .insert(agentVersions)
      .values({
        organizationId: actor.organizationId,
        projectId: actor.projectId,
        agentId: agent.id,
        version: number,
        config: prepared.config as unknown as Record<string, unknown>,
        contentHash: prepared.contentHash,
        createdByPrincipalId: actor.principalId,
        createdAt: now,
      })
      .returning();
    await tx.db.update(agents).set({ latestVersionId: version!.id, latestVersion: number, updatedAt: now }).where(eq(agents.id, agent.id));
    await recordAudit(tx, {
      action: 'agent.version_published',
      targetType: 'agent',
      targetId: agent.id,
      details: { version: number, contentHash: prepared.contentHash },
    });
    return toAgentVersionResponse(version!);
  });
}
