import type { PresetFact } from '../../../domain/agent-config/facts.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { DeploymentPreset } from './deployment.ts';
import { isProviderUsable } from './public.ts';
import { loadProjectPresets, resolveDeploymentPresets } from './resolve.ts';

/**
 * What agent publication needs about the preset keys a config names, in the actor's project:
 * project presets (archived ones included, flagged) and deployment presets. A preset is
 * `available: false` when its provider connection was removed or has no credential (for a
 * deployment preset: no live connection with its `providerKey` and type in the organization).
 * Keys that name nothing are absent from the map.
 */
export async function loadPresetFacts(
  ctx: ServiceContext,
  deps: { deploymentPresets: readonly DeploymentPreset[] },
  keys: readonly string[],
): Promise<Map<string, PresetFact>> {
  const actor = requireActor(ctx);
  const unique = [...new Set(keys)];
  const facts = new Map<string, PresetFact>();
  if (unique.length === 0) return facts;
  const scope = { organizationId: actor.organizationId, projectId: actor.projectId };
  for (const { preset, provider } of await loadProjectPresets(ctx, { ...scope, keys: unique, includeArchived: true })) {
    facts.set(preset.key, {
      key: preset.key,
      origin: 'project',
      archived: preset.archivedAt !== null,
      available: isProviderUsable(provider, provider.providerType),
    });
  }
  for (const { preset, provider } of await resolveDeploymentPresets(ctx, { ...scope, presets: deps.deploymentPresets, keys: unique })) {
    facts.set(preset.key, { key: preset.key, origin: 'deployment', archived: false, available: isProviderUsable(provider, preset.providerType) });
  }
  return facts;
}
