import { and, asc, eq, gt, isNull } from 'drizzle-orm';
import { modelPresets, modelProviders } from '../../../db/schema/index.ts';
import { ValidationError } from '../../../domain/errors.ts';
import { decodePresetCursor, encodePresetCursor } from '../../../domain/model-presets/list-cursor.ts';
import type { Page } from '../../../domain/pagination.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { DeploymentPreset } from './deployment.ts';
import { toDeploymentPresetResponse, toProjectPresetResponse, type PublicModelPreset } from './public.ts';
import { resolveDeploymentPresets } from './resolve.ts';

/**
 * The project's preset list (spec 2): deployment presets (`origin: deployment`) and the
 * project's non-archived presets (`origin: project`), including unavailable ones
 * (`available: false`, for example restored without a credential), merged and ordered by key.
 * Archived presets leave the list. Paged by key with an opaque cursor.
 */
export async function listModelPresets({
  ctx,
  deploymentPresets,
  input,
}: {
  ctx: ServiceContext;
  deploymentPresets: readonly DeploymentPreset[];
  input: { limit: number; cursor?: string | undefined };
}): Promise<Page<PublicModelPreset>> {
  const actor = requireActor(ctx);
  const afterKey = input.cursor ? decodePresetCursor(input.cursor) : null;
  if (input.cursor && afterKey === null) throw new ValidationError('cursor is not valid', { path: 'query.cursor' });
  const projectRows = await ctx.db
    .select({ preset: modelPresets, provider: modelProviders })
    .from(modelPresets)
    .innerJoin(modelProviders, eq(modelProviders.id, modelPresets.providerId))
    .where(
      and(
        eq(modelPresets.organizationId, actor.organizationId),
        eq(modelPresets.projectId, actor.projectId),
        isNull(modelPresets.archivedAt),
        afterKey !== null ? gt(modelPresets.key, afterKey) : undefined,
      ),
    )
    .orderBy(asc(modelPresets.key))
    .limit(input.limit + 1);
  const deployment = await resolveDeploymentPresets(ctx, {
    organizationId: actor.organizationId,
    projectId: actor.projectId,
    presets: deploymentPresets.filter((preset) => afterKey === null || preset.key > afterKey),
  });
  const merged = [
    ...projectRows.map((row) => toProjectPresetResponse(row.preset, row.provider)),
    ...deployment.map((row) => toDeploymentPresetResponse(row.preset, actor.organizationId, row.provider)),
  ].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const hasMore = merged.length > input.limit;
  const data = merged.slice(0, input.limit);
  return { data, pageInfo: { nextCursor: hasMore ? encodePresetCursor(data.at(-1)!.key) : null } };
}
