import { and, eq, isNull } from 'drizzle-orm';
import { modelPresets } from '../../../db/schema/index.ts';
import { ConflictError, NotFoundError } from '../../../domain/errors.ts';
import { assertHasScopes } from '../../../domain/scopes.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import type { DeploymentPreset } from './deployment.ts';

/**
 * Archives a project preset (spec 1 state table): it leaves the list, new agent versions cannot
 * name it, its key stays reserved, and published versions keep resolving it. Deployment
 * presets cannot be archived (409: they belong to the server's configuration). An unknown or
 * already archived preset is a 404.
 */
export async function archiveModelPreset({
  ctx,
  deploymentPresets,
  input,
}: {
  ctx: ServiceContext;
  deploymentPresets: readonly DeploymentPreset[];
  input: { presetId: string };
}): Promise<{ id: string; key: string; archived: true }> {
  const actor = requireActor(ctx);
  assertHasScopes(actor.scopes, ['project:admin']);
  const deployment = deploymentPresets.find((preset) => preset.id === input.presetId);
  if (deployment) {
    throw new ConflictError(`Preset ${deployment.key} is a deployment preset and cannot be archived; it is configured by the server operator`);
  }
  return withTransaction(ctx, async (tx) => {
    const [row] = await tx.db
      .update(modelPresets)
      .set({ archivedAt: tx.clock.now() })
      .where(
        and(
          eq(modelPresets.id, input.presetId),
          eq(modelPresets.organizationId, actor.organizationId),
          eq(modelPresets.projectId, actor.projectId),
          isNull(modelPresets.archivedAt),
        ),
      )
      .returning({ id: modelPresets.id, key: modelPresets.key });
    if (!row) throw new NotFoundError('No live model preset with that id in this project');
    await recordAudit(tx, { action: 'model_preset.archived', targetType: 'model_preset', targetId: row.id, details: { key: row.key } });
    return { id: row.id, key: row.key, archived: true as const };
  });
}
