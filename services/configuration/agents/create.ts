import { and, eq, isNull, like } from 'drizzle-orm';
import * as v from 'valibot';
import { agents, agentVersions } from '../../../db/schema/index.ts';
import { CreateAgentInput, keyFromName } from '../../../domain/agents.ts';
import { ConflictError } from '../../../domain/errors.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { isUniqueViolation } from '../../kernel/unique-violation.ts';
import { prepareAgentVersion, type PublicationDeps } from './prepare-version.ts';
import { toAgentResponse, toAgentVersionResponse, type PublicAgent, type PublicAgentVersion } from './public.ts';

/**
 * Creates an agent and publishes version 1 in one transaction. The config is checked in full
 * before any row is written. Without a `key`, one is derived from the name and made unique.
 */
export async function createAgent({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: PublicationDeps;
  input: CreateAgentInput;
}): Promise<PublicAgent & { versions: PublicAgentVersion[] }> {
  const actor = requireActor(ctx);
  const body = v.parse(CreateAgentInput, input);
  const root = body.initialConfig !== undefined ? 'body.initialConfig' : 'body.config';
  const prepared = await prepareAgentVersion(ctx, deps, { config: body.initialConfig ?? body.config, root, agentId: null });
  return withTransaction(ctx, async (tx) => {
    const key = body.key ?? (await availableKey(tx, actor.projectId, keyFromName(body.name)));
    const now = tx.clock.now();
    let agent;
    try {
      [agent] = await tx.db
        .insert(agents)
        .values({
          organizationId: actor.organizationId,
          projectId: actor.projectId,
          key,
          name: body.name,
          description: body.description ? body.description : null,
          latestVersion: 1,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError(`An agent with key "${key}" already exists in this project`);
      throw error;
    }
    const [version] = await tx.db
      .insert(agentVersions)
      .values({
        organizationId: actor.organizationId,
        projectId: actor.projectId,
        agentId: agent!.id,
        version: 1,
        config: prepared.config as unknown as Record<string, unknown>,
        contentHash: prepared.contentHash,
        createdByPrincipalId: actor.principalId,
        createdAt: now,
      })
      .returning();
    const [updated] = await tx.db.update(agents).set({ latestVersionId: version!.id }).where(eq(agents.id, agent!.id)).returning();
    await recordAudit(tx, { action: 'agent.created', targetType: 'agent', targetId: agent!.id, details: { key, version: 1 } });
    return { ...toAgentResponse(updated!, version!), versions: [toAgentVersionResponse(version!)] };
  });
}

/** `base`, or `base-2`, `base-3`, ... whichever is free among live agents of the project. */
async function availableKey(ctx: ServiceContext, projectId: string, base: string): Promise<string> {
  const taken = new Set(
    (
      await ctx.db
        .select({ key: agents.key })
        .from(agents)
        .where(and(eq(agents.projectId, projectId), isNull(agents.deletedAt), like(agents.key, `${base}%`)))
    ).map((row) => row.key),
  );
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}
