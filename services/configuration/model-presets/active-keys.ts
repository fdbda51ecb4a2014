import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { DeploymentPreset } from './deployment.ts';
import { isProviderUsable } from './public.ts';
import { loadProjectPresets, resolveDeploymentPresets } from './resolve.ts';

/**
 * `activeModelPresets` of the context object: the keys, sorted, of every preset the actor's
 * project can use now — available deployment presets and live, available project presets.
 */
export async function listActiveModelPresetKeys(ctx: ServiceContext, deps: { deploymentPresets: readonly DeploymentPreset[] }): Promise<string[]> {
  const actor = requireActor(ctx);
  const scope = { organizationId: actor.organizationId, projectId: actor.projectId };
  const project = await loadProjectPresets(ctx, { ...scope, includeArchived: false });
  const deployment = await resolveDeploymentPresets(ctx, { ...scope, presets: deps.deploymentPresets });
  const keys = [
    ...project.filter(({ provider }) => isProviderUsable(provider, provider.providerType)).map(({ preset }) => preset.key),
    ...deployment.filter(({ preset, provider }) => isProviderUsable(provider, preset.providerType)).map(({ preset }) => preset.key),
  ];
  return keys.sort();
}
