import { and, eq, inArray, isNull } from 'drizzle-orm';
import { modelPresets, modelProviders } from '../../../db/schema/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { ModelProviderRow } from '../model-providers/index.ts';
import type { DeploymentPreset } from './deployment.ts';
import type { ModelPresetRow } from './public.ts';

/**
 * Deployment presets as one organization and project see them: each with the organization's
 * live connection of its `providerKey` (or null). A project preset with the same key shadows
 * the deployment preset in that project (the project's key was there first), so it is left out.
 */
export async function resolveDeploymentPresets(
  ctx: ServiceContext,
  input: { organizationId: string; projectId: string; presets: readonly DeploymentPreset[]; keys?: readonly string[] },
): Promise<Array<{ preset: DeploymentPreset; provider: ModelProviderRow | null }>> {
  const wanted = input.keys ? input.presets.filter((preset) => input.keys!.includes(preset.key)) : input.presets;
  if (wanted.length === 0) return [];
  const providerKeys = [...new Set(wanted.map((preset) => preset.providerKey))];
  // Sequential on purpose: the executor may be a transaction (one connection).
  const providers = await ctx.db
    .select()
    .from(modelProviders)
    .where(and(eq(modelProviders.organizationId, input.organizationId), inArray(modelProviders.key, providerKeys), isNull(modelProviders.removedAt)));
  const shadowing = await ctx.db
    .select({ key: modelPresets.key })
    .from(modelPresets)
    .where(
      and(
        eq(modelPresets.projectId, input.projectId),
        inArray(
          modelPresets.key,
          wanted.map((preset) => preset.key),
        ),
      ),
    );
  const shadowed = new Set(shadowing.map((row) => row.key));
  return wanted
    .filter((preset) => !shadowed.has(preset.key))
    .map((preset) => ({ preset, provider: providers.find((provider) => provider.key === preset.providerKey) ?? null }));
}

/** Project presets (archived included when asked) with their provider rows, ordered by key. */
export async function loadProjectPresets(
  ctx: ServiceContext,
  input: { organizationId: string; projectId: string; keys?: readonly string[]; includeArchived: boolean },
): Promise<Array<{ preset: ModelPresetRow; provider: ModelProviderRow }>> {
  if (input.keys && input.keys.length === 0) return [];
  const rows = await ctx.db
    .select({ preset: modelPresets, provider: modelProviders })
    .from(modelPresets)
    .innerJoin(modelProviders, eq(modelProviders.id, modelPresets.providerId))
    .where(
      and(
        eq(modelPresets.organizationId, input.organizationId),
        eq(modelPresets.projectId, input.projectId),
        input.includeArchived ? undefined : isNull(modelPresets.archivedAt),
        input.keys ? inArray(modelPresets.key, [...input.keys]) : undefined,
      ),
    )
    .orderBy(modelPresets.key);
  return rows;
}
